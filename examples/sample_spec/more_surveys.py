"""Hand-written ground-truth surveys 41-43 (super-resolution, active learning, dialogue evaluation; 43 has an
empty ``all_cites``)."""

from __future__ import annotations

import datetime as dt

from .records import SurveySpec

SURVEYS_41_43: tuple[SurveySpec, ...] = (
    SurveySpec(
        41,
        "Deep Learning for Single-Image Super-Resolution: A Survey",
        dt.date(2022, 2, 10),
        "cs.CV",
        0.5236,
        "Single-image super-resolution reconstructs a high-resolution image from a low-resolution one. This"
        " survey reviews convolutional, attention-based and transformer architectures, perceptual,"
        " adversarial and diffusion-based objectives, methods for real-world degradations, domain-specific"
        " applications to faces and video, and the metrics used to evaluate them.",
        (
            (1, 0, "Introduction", ("s_srcnn", "s_edsr", "s_srgan"),
             "What is single-image super-resolution and how has deep learning changed it?",
             "Single-image super-resolution recovers a high-resolution image from a low-resolution"
             " observation, an ill-posed problem with many plausible solutions. Shallow convolutional"
             " networks first showed that an end-to-end mapping can outperform sparse-coding methods,"
             " enhanced residual networks without batch normalisation then set new fidelity records, and"
             " photo-realistic super-resolution with adversarial training shifted attention from pixel"
             " accuracy to perceptual quality."),
            (2, 0, "Problem Formulation", (), None,
             "The low-resolution image is a blurred, downsampled and noisy copy of the original."),
            (3, 0, "Network Architectures", (), None, ""),
            (4, 3, "Early Convolutional Models", ("s_srcnn", "s_vdsr", "s_espcn"),
             "Which early convolutional networks were proposed for image super-resolution?",
             "The first deep models upsampled the input with bicubic interpolation and refined it with a"
             " shallow convolutional network of three layers. Very deep residual learning extended this to"
             " twenty layers by predicting only the residual between the interpolated and the true image."
             " Efficient sub-pixel convolution moved upsampling to the end of the network, which allows"
             " real-time upscaling of video on a single GPU."),
            (5, 3, "Residual and Attention Networks", ("s_edsr", "s_rcan"),
             "How do residual blocks and channel attention enable very deep super-resolution networks?",
             "Enhanced residual networks remove batch normalisation from residual blocks and scale the"
             " residuals, which stabilises the training of large models. Residual channel attention adds a"
             " squeeze-and-excitation style attention to every block and nests residual groups inside long"
             " skip connections, allowing very deep super-resolution networks with hundreds of layers."),
            (6, 3, "Transformer-Based Restoration", ("s_swinir", "s_light"),
             "How are transformers and lightweight networks used for image restoration?",
             "Image restoration with shifted-window transformers computes self-attention within local windows"
             " that shift between layers, giving a strong trade-off between accuracy and parameters. For"
             " deployment on phones, lightweight information distillation networks split features into"
             " retained and refined parts and reach good quality with under a million parameters."),
            (7, 0, "Learning Objectives", (), None,
             "The choice of loss function decides what the network optimises for."),
            (8, 7, "Perceptual and Adversarial Losses", ("s_percep", "s_srgan", "s_esrgan"),
             "How do perceptual and adversarial losses produce sharper super-resolved images?",
             "Pixel losses lead to blurry outputs because they average over plausible solutions."
             " Feature-space perceptual losses compare images in the activation space of a pretrained"
             " classification network. Photo-realistic super-resolution with adversarial training adds a"
             " discriminator that pushes outputs towards the natural image manifold, and enhanced"
             " adversarial super-resolution with relativistic discriminators produces sharper textures with"
             " fewer artefacts."),
            (9, 7, "Generative Priors", (), None, ""),
            (10, 9, "Diffusion and Bridge Models", ("s_diff", "s_schro"),
             "How are diffusion models and Schrödinger bridges applied to super-resolution?",
             "Iterative refinement with denoising diffusion starts from pure noise and denoises step by"
             " step conditioned on the low-resolution input, producing samples that human raters often"
             " cannot tell from real photographs. Schrödinger bridges for generative modelling replace the"
             " noise prior with a learned transport between two data distributions, which suits restoration"
             " tasks where the degraded image is a better starting point than noise."),
            (11, 0, "Real-World Super-Resolution", ("s_real", "s_kernel"),
             "How can super-resolution models handle unknown real-world degradations?",
             "Models trained on bicubic downsampling fail on real photographs, whose degradations are"
             " unknown. Blind super-resolution with learned degradation models synthesises realistic"
             " training pairs, and kernel estimation for blind image super-resolution in the wild predicts"
             " the blur kernel of each image before restoring it."),
            (12, 0, "Domain-Specific Applications", ("s_face", "s_video"),
             "How is super-resolution adapted to faces and to video?",
             "Faces are a common special case: face hallucination with facial prior guidance uses landmarks"
             " and parsing maps to restore very small faces. Video super-resolution exploits neighbouring"
             " frames, and recurrent propagation passes features forward and backward through time to"
             " aggregate information from the whole sequence."),
            (13, 0, "Evaluation Metrics", ("s_metric", "s_iqa"),
             "Which metrics evaluate super-resolution quality and do they agree with human judgements?",
             "PSNR and SSIM remain the standard fidelity metrics, but studies show that perceptual quality"
             " metrics often disagree with human judgements on super-resolved images. Learned image quality"
             " assessment models trained on human ratings of super-resolution benchmarks correlate better"
             " with perceived quality."),
            (14, 0, "Conclusion", ("s_light", "s_diff"),
             "What trade-offs will shape future super-resolution research?",
             "Super-resolution has progressed from shallow networks to transformers and diffusion models."
             " Lightweight models for mobile devices and iterative refinement with diffusion mark two"
             " opposite ends of the efficiency spectrum that future work must bridge."),
        ),
    ),
    SurveySpec(
        42,
        "Active Learning for Text Classification: A Survey of Query Strategies and Deep Models",
        dt.date(2021, 11, 2),
        "cs.CL",
        0.4718,
        "Active learning lets a text classifier choose which documents to label. We review uncertainty,"
        " committee, diversity and contrastive query strategies, discuss how pretrained transformers change"
        " the picture, and cover practical issues such as cold start, class imbalance, annotation cost,"
        " stopping and reproducibility.",
        (
            (1, 0, "Introduction", ("a_unc", "r_bert", "a_human"),
             "Why is active learning used to reduce labelling cost in text classification?",
             "Labelling text is expensive, and active learning reduces this cost by letting the model choose"
             " which examples an annotator should label next. Uncertainty sampling for low-resource text"
             " classification is the simplest and most widely used strategy. The arrival of pretrained"
             " transformers such as BERT has changed which strategies work, and human-in-the-loop labelling"
             " interfaces determine how much of the theoretical saving is realised in practice."),
            (2, 0, "Query Strategies", (), None, ""),
            (3, 2, "Uncertainty-Based Strategies", ("a_unc", "a_margin", "a_bald"),
             "Which uncertainty-based query strategies select documents for labelling?",
             "Uncertainty sampling selects the examples whose predicted class distribution has the highest"
             " entropy or the lowest confidence. Margin-based query selection, originally developed for"
             " support vector text classifiers, picks documents closest to the decision boundary. Bayesian"
             " active learning with Monte Carlo dropout estimates model uncertainty by averaging several"
             " stochastic forward passes and works well for sentence classification."),
            (4, 2, "Committee and Ensemble Methods", ("a_qbc",),
             "How does query-by-committee use disagreement between classifiers to select examples?",
             "Query-by-committee trains several models and queries the examples on which they disagree most."
             " With ensembles of neural text classifiers, vote entropy and the KL divergence between members"
             " are the most common disagreement measures, and the ensemble doubles as a better-calibrated"
             " predictor."),
            (5, 2, "Diversity and Representativeness", (), None,
             "Uncertainty alone tends to select redundant batches of similar documents."),
            (6, 5, "Core-Sets and Gradient Embeddings", ("a_core", "a_badge"),
             "How do core-set and gradient-embedding methods select diverse batches?",
             "Core-set selection chooses a batch that covers the embedding space of the unlabelled pool,"
             " framing active learning for deep text encoders as a k-centre problem. Diverse batch active"
             " learning via gradient embeddings combines uncertainty and diversity by clustering the"
             " gradients of the loss with respect to the last layer."),
            (7, 5, "Contrastive Acquisition", ("a_cal",),
             "What is contrastive active learning and which examples does it acquire?",
             "Contrastive active learning acquires examples that are close in the model's feature space but"
             " receive maximally different predictions, which targets the regions where the decision boundary"
             " is least certain and avoids outliers."),
            (8, 0, "Active Learning with Pretrained Transformers", ("r_bert", "r_dontstop", "a_cold"),
             "How do pretrained transformers and continued pretraining change active learning for text?",
             "Fine-tuned BERT models are strong even with few labels, which shrinks the gap between active"
             " and random selection. Continued domain-adaptive and task-adaptive pretraining on the"
             " unlabelled pool, as advocated by work arguing not to stop pretraining, improves every"
             " acquisition strategy. Cold-start active learning through self-supervised language modelling"
             " uses the masked language modelling loss to choose the first batch before any label exists."),
            (9, 0, "Practical Considerations", (), None, ""),
            (10, 9, "Cold Start and Class Imbalance", ("a_cold", "a_imb"),
             "How should the first batch be chosen and how does class imbalance affect active learning?",
             "The first batch must be chosen without a trained model, and self-supervised cold-start"
             " strategies based on language modelling surprisal outperform random seeds. Under class"
             " imbalance, as in intent detection with many rare intents, active learning must balance"
             " uncertainty against the need to find examples of minority classes at all."),
            (11, 9, "Annotation Cost and Stopping", ("a_cost", "a_stop"),
             "How can annotation cost be modelled and when should active learning stop?",
             "Examples differ in how long they take to label, and annotation cost-aware active learning for"
             " document classification divides the expected benefit by the predicted labelling time. Stopping"
             " criteria decide when further labelling no longer pays off, for example when predictions on a"
             " held-out stop set stabilise."),
            (12, 0, "Combining Active and Semi-Supervised Learning", ("a_semi",),
             "How can active learning be combined with self-training on unlabelled text?",
             "Unlabelled data can be used twice: active learning selects informative examples for"
             " annotation, while self-training assigns pseudo-labels to confident ones. Combining active and"
             " semi-supervised learning for sentiment analysis reaches full-supervision accuracy with a"
             " fraction of the labels."),
            (13, 0, "Reproducibility and Evaluation", ("a_eval", "a_transfer"),
             "Are reported gains of active learning in NLP reproducible and do acquired datasets transfer?",
             "Reported gains of active learning are often within the variance of random seeds. Studies of"
             " the reproducibility of active learning experiments in NLP recommend multiple runs and strong"
             " random baselines, and work on the transferability of actively acquired datasets shows that"
             " data chosen by one model family may not help another."),
            (14, 0, "Conclusion", (), None,
             "Active learning remains useful but must be evaluated with care."),
            (15, 0, "Outlook", ("a_human", "a_transfer"),
             "What developments are expected in active learning for text classification?",
             "Future systems will couple acquisition strategies with better human-in-the-loop labelling"
             " interfaces and will need to ensure that actively acquired datasets remain useful when the"
             " model family changes."),
        ),
    ),
    SurveySpec(
        43,
        "Evaluating Open-Domain Dialogue Systems: A Survey of Human and Automatic Methods",
        dt.date(2019, 9, 12),
        "cs.CL",
        0.3349,
        "Evaluating dialogue systems remains an open problem. We survey human evaluation protocols, from"
        " crowdsourced ratings to pairwise comparisons, automatic word-overlap and learned metrics, and the"
        " evaluation of task-oriented systems with simulated users.",
        (
            (1, 0, "Introduction", (), None,
             "Evaluating open-domain dialogue systems is notoriously difficult because many different"
             " responses can be appropriate for the same context. Human judgements remain the reference"
             " standard, yet word-overlap metrics borrowed from machine translation correlate poorly with"
             " them, and learned evaluation models have been proposed to close this gap."),
            (2, 0, "Human Evaluation", (), None,
             "Human evaluation asks annotators to rate responses or whole conversations along dimensions such"
             " as fluency, relevance, engagement and consistency. Predicting user engagement in open-domain"
             " conversations from interaction signals offers a cheaper proxy for some of these dimensions."),
            (3, 2, "Crowdsourcing Protocols", (), None,
             "Most human studies are run on crowdsourcing platforms, where quality control for crowdsourced"
             " dialogue annotation, including attention checks and inter-annotator agreement thresholds, is"
             " essential to obtain reliable labels."),
            (4, 3, "Pairwise Comparison versus Likert Scales", (), None,
             "Comparing Likert scales with ranking for crowdsourced evaluation of chatbots shows that"
             " relative judgements are more consistent than absolute ones. Pairwise human comparisons of"
             " multi-turn dialogue systems exploit this by showing annotators two full conversations side by"
             " side."),
            (5, 0, "Automatic Metrics", (), None, ""),
            (6, 5, "Word-Overlap Metrics", (), None,
             "BLEU, METEOR and ROUGE compare a response with a single reference. Analyses of word-overlap"
             " metrics for dialogue responses find that their correlation with human judgements is weak at"
             " the response level and only moderate at the system level."),
            (7, 5, "Learned Evaluation Models", (), None,
             "Learning an automatic dialogue evaluation model from human scores trains a regressor over"
             " context, reference and response encodings. Referenced and unreferenced metrics combine"
             " similarity to a reference with a learned score of how well a response fits its context,"
             " removing the need for multiple references."),
            (8, 0, "Task-Oriented Dialogue Evaluation", (), None,
             "Task-oriented systems are judged mainly by task success and efficiency."),
            (9, 0, "Conclusion", (), None,
             "No single automatic metric yet replaces human evaluation of open-domain dialogue. Simulated"
             " users make the evaluation of task-oriented dialogue systems cheaper, and we expect learned"
             " metrics to converge with such user models."),
        ),
        empty_all_cites=True,
    ),
)  # fmt: skip
