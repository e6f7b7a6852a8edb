import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("surge/heading_soft_recall")
launch_gradio_widget(module)
