import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("surge/heading_entity_recall")
launch_gradio_widget(module)
