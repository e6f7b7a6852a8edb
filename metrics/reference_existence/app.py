import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("surge/reference_existence")
launch_gradio_widget(module)
