import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("surge/quiz")
launch_gradio_widget(module)
