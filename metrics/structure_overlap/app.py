import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("surge/structure_overlap")
launch_gradio_widget(module)
