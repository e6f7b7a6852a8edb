import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("surge/richness")
launch_gradio_widget(module)
