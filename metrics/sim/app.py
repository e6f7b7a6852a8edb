import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("surge/sim")
launch_gradio_widget(module)
