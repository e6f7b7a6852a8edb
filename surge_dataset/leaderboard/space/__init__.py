"""The Gradio app of the leaderboard Space; `surge leaderboard build` copies these modules into the Space folder."""
