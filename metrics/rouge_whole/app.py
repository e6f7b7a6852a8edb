import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("surge/rouge_whole")
launch_gradio_widget(module)
