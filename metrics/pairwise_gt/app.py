import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("surge/pairwise_gt")
launch_gradio_widget(module)
