"""The int8 MiniLM's ONNX graph, built from the safetensors weights with onnx.helper (no exporter,
no torch), with activation smoothing calibrated on a few texts: what `local._build_into` quantizes
and caches once. Build time only: a process that finds the cached model never imports this."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import onnx

    from engram.adapters.embeddings import minilm_reference as ref

OPSET = 17  # first opset with LayerNormalization; ir_version 8 is what every recent onnxruntime reads
IR_VERSION = 8


# Calibration texts for activation ranges. BERT's outlier channels are a property of the weights
# (the same few channels light up for any input), so a small varied sample finds them.
CALIBRATION_TEXTS = (
    "I moved to Berlin last spring and started a new job as a pediatric nurse.",
    "My daughter Emma turns seven on March 3rd; she wants a dinosaur cake.",
    "What did I tell you about my sister's wedding plans?",
    "Remind me to renew the car insurance before the end of the month.",
    "The quarterly revenue grew 12% year over year, driven mostly by cloud services.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "def fetch(url: str) -> bytes: return urllib.request.urlopen(url, timeout=10).read()",
    "ERROR 2024-05-01T12:00:03Z worker-7 connection reset by peer (retry 3/5)",
    "I'm allergic to peanuts and I don't eat pork, but fish is fine.",
    "ok thanks!",
    "Can you summarise the meeting notes from Tuesday and list the action items?",
    "The Treaty of Westphalia in 1648 ended the Thirty Years' War in the Holy Roman Empire.",
    "User prefers dark mode, metric units, and answers in short bullet points.",
    "SELECT id, content FROM memories WHERE user_id = $1 ORDER BY created_at DESC LIMIT 20;",
    "We hiked the Pacific Crest Trail from Mexico to Oregon over four months in 2019.",
    "Le rendez-vous chez le dentiste est prévu pour jeudi à 14 h 30.",
    "My favourite band is Radiohead and I've seen them live three times.",
    "The API returns 429 Too Many Requests when the token bucket is empty; back off and retry.",
    "She said the project deadline moved from Friday to next Wednesday because of the audit.",
    "Buy oat milk, eggs, spinach, two lemons and a bag of coffee beans.",
    "# Installation\n\nRun `pip install engram` and set ENGRAM_DATABASE_URL before starting.",
    "Mitochondria are the powerhouse of the cell, producing ATP through oxidative phosphorylation.",
    "I think I'm burning out; I've been working twelve-hour days for three weeks straight.",
    "The flight UA 931 from San Francisco to London departs at 16:05 from gate G92.",
    "Our dog Biscuit is a three-year-old beagle who hates thunderstorms and loves cheese.",
    "Quantum entanglement links the states of two particles regardless of the distance between them.",
    "Please don't schedule anything before 10 am on weekdays, I take the kids to school.",
    "Total: $1,284.50 (incl. VAT 19%) — invoice #A-2291 due 2025-01-15.",
    "He switched from Python to Rust for the ingestion service to cut memory usage in half.",
    "Why does my sourdough starter smell like acetone after two days in the fridge?",
    "The committee approved the budget, but two members abstained and one voted against it.",
    "lol yeah that's exactly what happened last time we tried to park downtown",
)
SMOOTH_ALPHA = 0.5  # how much of an outlier channel's excess range moves into the weights
FFN_OUTLIER_CHANNELS = 16  # per layer, FFN-output channels that get their own activation scale


def calibrate(weights: ref.WeightDict, tokenizer_path: Path) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Activation-outlier handling for dynamic int8 (which has one scale per tensor).

    A few hidden channels reach ~30 while the rest stay near 2, so one per-tensor scale crushes
    the small ones. Two remedies, measured on 200 real paragraphs against the float model:
    - SmoothQuant-style: divide outlier channels of the inputs to the attention and FFN-in
      MatMuls by s = (max / median) ** alpha (never below 1) and multiply the matching weight
      rows by s: mean cosine 0.993 -> 0.995.
    - The FFN output MatMul's GELU activations have sparse, input-dependent spikes that
      smoothing makes worse; there, the 16 largest channels go to a separate small MatMul with
      its own scale: -> mean 0.998, min 0.993, for a few percent of speed.
    """
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    from engram.adapters.embeddings import minilm_reference as ref

    tok = Tokenizer.from_file(str(tokenizer_path))
    tok.enable_truncation(ref.MAX_TOKENS)
    tok.no_padding()
    batch = ref.pad_batch([enc.ids for enc in tok.encode_batch(list(CALIBRATION_TEXTS))])
    probe = build_graph(weights, expose_sites=True)
    session = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [out.name for out in session.get_outputs()][1:]
    values = session.run(names, {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask})
    real = batch.attention_mask.astype(bool)
    smoothing: dict[str, np.ndarray] = {}
    outliers: dict[str, np.ndarray] = {}
    for name, value in zip(names, values, strict=True):
        peak = np.abs(value[real]).max(axis=0)
        if name.endswith(".ffn_out"):
            outliers[name] = np.sort(np.argsort(peak)[-FFN_OUTLIER_CHANNELS:])
        else:
            smoothing[name] = np.maximum(peak / np.median(peak), 1.0) ** SMOOTH_ALPHA
    return smoothing, outliers


def quantize_activations_per_row(model: onnx.ModelProto) -> onnx.ModelProto:
    """Give every token its own activation scale, in place of dynamic int8's one scale per tensor.

    onnxruntime's DynamicQuantizeLinear takes one scale over the whole [batch, seq, hidden] input,
    padding included, so a text's vector depended on what else was in its batch (cosine ~0.998 to
    itself alone). Here each DynamicQuantizeLinear becomes a symmetric per-row quantizer: scale =
    max|row| / 127, codes stored as uint8 with zero point 128, so MatMulInteger keeps its fast u8s8
    kernel (int8 activations have none: 3x slower, measured). A row's codes depend on that row
    alone, and the same text gets the same vector in any batch, within float rounding.

    The row scale is applied after the weight's per-channel scale, by a Mul of its own: left in the
    quantizer's Mul(activation scale, weight scale), onnxruntime fuses the chain into
    MatMulIntegerToFloat, which reads the activation scale as one number (cosine to float fell to 0.7).
    That Mul gets a constant 1 instead, so the fused kernel still does the int8 product and the
    per-channel dequantization in one pass. QuantizeLinear with scale 1 does the rounding, the
    zero point and the cast in one op.
    """
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    graph = model.graph
    graph.initializer.extend(
        [
            numpy_helper.from_array(np.array(128, np.uint8), "rowq.zero_point"),
            numpy_helper.from_array(np.array(1.0, np.float32), "rowq.one"),
            numpy_helper.from_array(np.array(127.0, np.float32), "rowq.levels"),
            numpy_helper.from_array(np.array(1e-8, np.float32), "rowq.tiny"),
        ]
    )
    row_scales = {n.output[1] for n in graph.node if n.op_type == "DynamicQuantizeLinear"}
    by_output = {n.output[0]: n for n in graph.node}
    # What the quantizer wrote per product: MatMulInteger -> Cast -> Mul(cast, Mul(row scale, weight scale)).
    # Keyed by the dequantizing Mul's output: (the MatMulInteger, the weight's scale, the row scale).
    fused: dict[str, tuple[onnx.NodeProto, str, str]] = {}
    dropped: set[str] = set()
    for node in graph.node:
        if node.op_type != "Mul" or len(node.input) != 2:
            continue
        cast, product = (by_output.get(i) for i in node.input)
        if cast is None or product is None or cast.op_type != "Cast" or product.op_type != "Mul":
            continue
        row_scale = next((i for i in product.input if i in row_scales), None)
        matmul = by_output.get(cast.input[0])
        if row_scale is None or matmul is None or matmul.op_type != "MatMulInteger":
            continue
        weight_scale = next(i for i in product.input if i != row_scale)
        fused[node.output[0]] = (matmul, weight_scale, row_scale)
        dropped |= {cast.output[0], matmul.output[0], product.output[0]}
    nodes: list[onnx.NodeProto] = []
    for node in graph.node:
        out = node.output[0]
        if node.op_type == "DynamicQuantizeLinear":
            x, (codes, scale, zero_point) = node.input[0], node.output
            p = f"{node.name or x}.rowq"
            nodes += [
                helper.make_node("Abs", [x], [f"{p}.abs"], name=f"{p}.abs"),
                helper.make_node("ReduceMax", [f"{p}.abs"], [f"{p}.peak"], name=f"{p}.peak", axes=[-1], keepdims=1),
                helper.make_node("Max", [f"{p}.peak", "rowq.tiny"], [f"{p}.peak_safe"], name=f"{p}.peak_safe"),
                helper.make_node("Div", [f"{p}.peak_safe", "rowq.levels"], [scale], name=f"{p}.scale"),
                helper.make_node("Div", [x, scale], [f"{p}.scaled"], name=f"{p}.scaled"),
                helper.make_node(
                    "QuantizeLinear", [f"{p}.scaled", "rowq.one", "rowq.zero_point"], [codes], name=f"{p}.codes"
                ),
                helper.make_node("Identity", ["rowq.zero_point"], [zero_point], name=f"{p}.zero_point"),
            ]
        elif out in fused:
            matmul, weight_scale, row_scale = fused[out]
            a, b, a_zero, b_zero = matmul.input
            nodes += [
                helper.make_node(
                    "MatMulIntegerToFloat",
                    [a, b, "rowq.one", weight_scale, a_zero, b_zero],
                    [f"{out}.per_channel"],
                    name=f"{out}.per_channel",
                    domain="com.microsoft",
                ),
                helper.make_node("Mul", [f"{out}.per_channel", row_scale], [out], name=f"{out}.per_row"),
            ]
        elif out not in dropped:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.checker.check_model(model)
    return model


def build_graph(
    w: ref.WeightDict,
    smoothing: dict[str, np.ndarray] | None = None,
    outliers: dict[str, np.ndarray] | None = None,
    expose_sites: bool = False,
) -> onnx.ModelProto:
    """BERT encoder + mean pooling as a float32 ONNX graph, laid out like a torch export so
    onnxruntime's graph optimizer recognises the LayerNorm / Gelu patterns.

    inputs: input_ids, attention_mask (int64 [batch, seq]); output: pooled [batch, 384] (not
    normalised: that is one numpy line and keeps the graph free of epsilon choices).
    `smoothing` and `outliers` come from `calibrate`; `expose_sites` adds the inputs of each
    MatMul group as extra outputs so `calibrate` can measure them.
    """
    import onnx
    from onnx import TensorProto, helper

    from engram.adapters.embeddings import minilm_reference as ref

    g = _GraphBuilder(w, smoothing or {}, outliers or {}, expose_sites)
    # Embeddings. token_type_ids are always 0 for single sentences: fold that row into positions.
    word = g.const("emb.word", g.f32(w["embeddings.word_embeddings.weight"]))
    pos = g.const(
        "emb.pos",
        g.f32(w["embeddings.position_embeddings.weight"] + w["embeddings.token_type_embeddings.weight"][0]),
    )
    seq_len = g.node("Slice", [g.node("Shape", ["input_ids"]), g.c_ax1, g.c_ax2])
    x = g.node("Add", [g.node("Gather", [word, "input_ids"]), g.node("Slice", [pos, g.c_zero1, seq_len, g.c_zero1])])
    x = g.layer_norm(x, "embeddings.LayerNorm")

    # Additive attention mask [batch, 1, 1, seq]: 0 for tokens, -10000 for padding.
    mask_f = g.node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    mask_bias = g.node("Mul", [g.node("Sub", [g.c_one, g.node("Unsqueeze", [mask_f, g.c_ax12])]), g.c_neg])

    for i in range(ref.LAYERS):
        x = g.encoder_layer(x, f"encoder.layer.{i}", mask_bias)

    # Mean pooling over real tokens.
    mask_3d = g.node("Unsqueeze", [mask_f, g.c_ax2])
    summed = g.node("ReduceSum", [g.node("Mul", [x, mask_3d]), g.c_ax1], keepdims=0)
    count = g.node("Max", [g.node("ReduceSum", [mask_3d, g.c_ax1], keepdims=0), g.c_tiny])
    g.nodes.append(helper.make_node("Div", [summed, count], ["pooled"], name="pooled"))

    graph = helper.make_graph(
        g.nodes,
        "all-minilm-l6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", ref.HIDDEN])]
        + [helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", "seq", None]) for name in g.site_outputs],
        initializer=g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="engram")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


class _GraphBuilder:
    """The nodes and initializers of the graph `build_graph` lays out, and the blocks it repeats."""

    def __init__(
        self, w: ref.WeightDict, smoothing: dict[str, np.ndarray], outliers: dict[str, np.ndarray], expose_sites: bool
    ) -> None:
        import numpy as np

        from engram.adapters.embeddings import minilm_reference as ref

        self.w, self.smoothing, self.outliers, self.expose_sites = w, smoothing, outliers, expose_sites
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.site_outputs: list[str] = []
        self._counter = iter(range(1_000_000))
        head_dim = ref.HIDDEN // ref.HEADS
        i64 = np.int64
        self.c_one = self.const("c.one", np.array(1.0, np.float32))
        self.c_half = self.const("c.half", np.array(0.5, np.float32))
        self.c_sqrt2 = self.const("c.sqrt2", np.array(np.sqrt(2.0), np.float32))
        self.c_scale = self.const("c.scale", np.array(np.sqrt(head_dim), np.float32))
        self.c_neg = self.const("c.neg", np.array(-10000.0, np.float32))
        self.c_heads_shape = self.const("c.heads_shape", np.array([0, 0, ref.HEADS, head_dim], i64))
        self.c_hidden_shape = self.const("c.hidden_shape", np.array([0, 0, ref.HIDDEN], i64))
        self.c_ax1 = self.const("c.ax1", np.array([1], i64))
        self.c_ax2 = self.const("c.ax2", np.array([2], i64))
        self.c_ax12 = self.const("c.ax12", np.array([1, 2], i64))
        self.c_zero1 = self.const("c.zero1", np.array([0], i64))
        self.c_tiny = self.const("c.tiny", np.array(1e-9, np.float32))

    @staticmethod
    def f32(a: np.ndarray) -> np.ndarray:
        import numpy as np

        return a.astype(np.float32)

    def const(self, name: str, value: np.ndarray) -> str:
        import numpy as np
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(self, op: str, inputs: list[str], name: str | None = None, **attrs: Any) -> str:
        from onnx import helper

        out = name or f"{op.lower()}_{next(self._counter)}"
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def site(self, x: str, name: str) -> tuple[str, np.ndarray | None]:
        """Input of a quantized MatMul group; divided by its SmoothQuant scale when one is given."""
        if self.expose_sites:
            self.site_outputs.append(self.node("Identity", [x], name=name))
        scale = self.smoothing.get(name)
        if scale is None:
            return x, None
        return self.node("Mul", [x, self.const(f"{name}.inv_scale", self.f32(1.0 / scale))]), scale

    def linear(
        self,
        x: str,
        prefix: str,
        scale: np.ndarray | None = None,
        cols: np.ndarray | None = None,
        out_scale: np.ndarray | None = None,
        tag: str = "",
    ) -> str:
        """x @ W.T + b as MatMul on [in, out] weights, the form the dynamic quantizer turns into
        MatMulInteger. scale: smoothing of the input rows; cols: a subset of the outputs;
        out_scale: divides the outputs (folds the next site's smoothing in for free)."""
        weight_t = self.w[f"{prefix}.weight"].T
        bias = self.w[f"{prefix}.bias"]
        if scale is not None:
            weight_t = weight_t * scale[:, None]
        if out_scale is not None:
            weight_t, bias = weight_t / out_scale[None, :], bias / out_scale
        if cols is not None:
            weight_t, bias = weight_t[:, cols], bias[cols]
        wt = self.const(f"{prefix}.w{tag}", self.f32(weight_t))
        b = self.const(f"{prefix}.b{tag}", self.f32(bias))
        return self.node("Add", [self.node("MatMul", [x, wt], name=f"{prefix}.matmul{tag}"), b])

    def gelu(self, h: str) -> str:
        # Exact (erf) GELU, written the way onnxruntime's GeluFusion expects.
        erf = self.node("Erf", [self.node("Div", [h, self.c_sqrt2])])
        return self.node("Mul", [self.node("Mul", [h, self.node("Add", [erf, self.c_one])]), self.c_half])

    def layer_norm(self, x: str, prefix: str) -> str:
        from engram.adapters.embeddings import minilm_reference as ref

        g = self.const(f"{prefix}.g", self.f32(self.w[f"{prefix}.weight"]))
        b = self.const(f"{prefix}.beta", self.f32(self.w[f"{prefix}.bias"]))
        return self.node("LayerNormalization", [x, g, b], axis=-1, epsilon=ref.LN_EPS)

    def split_heads(self, t: str, perm: list[int]) -> str:
        return self.node("Transpose", [self.node("Reshape", [t, self.c_heads_shape])], perm=perm)

    def encoder_layer(self, x: str, p: str, mask_bias: str) -> str:
        xs, sc = self.site(x, f"{p}.qkv")
        q = self.split_heads(self.linear(xs, f"{p}.attention.self.query", sc), [0, 2, 1, 3])
        k = self.split_heads(self.linear(xs, f"{p}.attention.self.key", sc), [0, 2, 3, 1])
        # ctx is linear in V channel by channel, so the attention-output smoothing folds into V.
        s_ctx = self.smoothing.get(f"{p}.attn_out")
        v = self.split_heads(self.linear(xs, f"{p}.attention.self.value", sc, out_scale=s_ctx), [0, 2, 1, 3])
        scores = self.node("Add", [self.node("Div", [self.node("MatMul", [q, k]), self.c_scale]), mask_bias])
        ctx = self.node("MatMul", [self.node("Softmax", [scores], axis=-1), v])
        ctx = self.node("Reshape", [self.node("Transpose", [ctx], perm=[0, 2, 1, 3]), self.c_hidden_shape])
        if self.expose_sites:
            self.site(ctx, f"{p}.attn_out")
        attn = self.linear(ctx, f"{p}.attention.output.dense", s_ctx)
        x = self.layer_norm(self.node("Add", [attn, x]), f"{p}.attention.output.LayerNorm")
        ffn = self.feed_forward(x, p)
        return self.layer_norm(self.node("Add", [ffn, x]), f"{p}.output.LayerNorm")

    def feed_forward(self, x: str, p: str) -> str:
        import numpy as np

        from engram.adapters.embeddings import minilm_reference as ref

        xs, sc = self.site(x, f"{p}.ffn_in")
        out_idx = self.outliers.get(f"{p}.ffn_out")
        if out_idx is None:
            h, sc_out = self.site(self.gelu(self.linear(xs, f"{p}.intermediate.dense", sc)), f"{p}.ffn_out")
            return self.linear(h, f"{p}.output.dense", sc_out)
        # Outlier channels get their own FFN slice (two MatMuls sharing one quantized input),
        # so each slice's activations get their own dynamic scale; no Split copy needed.
        w2_t = self.w[f"{p}.output.dense.weight"].T
        parts = []
        for tag, idx in (("", np.setdiff1d(np.arange(ref.INTERMEDIATE), out_idx)), (".outliers", out_idx)):
            h = self.gelu(self.linear(xs, f"{p}.intermediate.dense", sc, cols=idx, tag=tag))
            w2 = self.const(f"{p}.output.dense.w{tag}", self.f32(w2_t[idx]))
            parts.append(self.node("MatMul", [h, w2], name=f"{p}.output.dense.matmul{tag}"))
        bias = self.const(f"{p}.output.dense.b", self.f32(self.w[f"{p}.output.dense.bias"]))
        return self.node("Add", [self.node("Add", parts), bias])
