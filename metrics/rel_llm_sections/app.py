import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("surge/rel_llm_sections")
launch_gradio_widget(module)
