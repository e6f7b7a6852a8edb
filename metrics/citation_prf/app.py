import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("surge/citation_prf")
launch_gradio_widget(module)
