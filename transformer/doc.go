// Package transformer implements a small decoder-only transformer in pure Go,
// generic over float32 (for speed) and float64 (for gradient checks), with
// hand-written reverse-mode gradients, Adam training on all cores,
// KV-cached online decoding and safetensors files. It imports nothing else
// from this module: it is a sequence model usable by any Go program. The
// packages that pretrain it on game trajectories and play with it live
// elsewhere (package learner/incontext).
//
// # Start here
//
// [New] builds a model from a [Config], [Train] fits it to [Example]s, and
// [Model.NewSession] decodes online; package learner/incontext does all
// three for game and bandit trajectories.
//
// # Interfaces
//
// [Transformer] and [Decoder] are the sequence model as the in-context
// learners consume it: a source of online decoders that take a token or a
// feature vector and yield logits, and can be truncated or reset. [*Model]
// implements Transformer through its [Session]; a model written by hand or
// imported from elsewhere implements the same two methods and plays in
// every in-context learner of the module.
//
// # Architecture
//
// A [Config] describes the model. For an input sequence of length n the
// model computes, with width d, H heads of width d_h = d/H and L blocks:
//
//	embedding   x_i = E[tok_i] + P_i            (token input, Config.Vocab)
//	            x_i = W_in·f_i + b_in + P_i      (feature input, Config.Features)
//	block ℓ     pre-norm:  h = x + Attn(LN₁(x)),   x' = h + MLP(LN₂(h))
//	            post-norm: h = LN₁(x + Attn(x)),   x' = LN₂(h + MLP(h))
//	            no norm:   h = x + Attn(x),        x' = h + MLP(h)
//	read-out    z_i = W_out·LN_f(x_i) + b_out    (LN_f only with FinalNorm)
//	            z_i = E·LN_f(x_i)                (TiedHead: E the token table)
//
// where P_i is a learned position vector (or zero with NoPositions), LN is
// LayerNorm with gain and bias (Ba et al. 2016), MLP(u) = W₂·σ(W₁u + b₁) + b₂
// with σ = ReLU, GELU or GELU's tanh approximation (GELUTanh, GPT-2's), and
// multi-head causal attention is
//
//	[q_i; k_i; v_i] = W_qkv·u_i + b_qkv,     s_ij = ⟨q_i^h, k_j^h⟩/√d_h,
//	softmax: o_i^h = Σ_{j≤i} softmax_j(s_i·)·v_j^h                         (GPT)
//	relu:    o_i^h = (1/i) Σ_{j≤i} relu(s_ij)·v_j^h   (i counted from 1)
//	Attn(u)_i = W_o·[o_i^1; …; o_i^H] + b_o.
//
// The ReLU kind is the theory model of in-context-games-omd (§3.3, the
// masked attention layer) and of Lin, Bai and Mei (2024, "Transformers as
// decision makers", net.py), normalised by the number of attended
// positions; the softmax kind is what the papers' experiments trained. Both
// scale scores by 1/√d_h (the theory paper writes 1/√d with d the width of
// its single-head construction; Lin et al. use no scaling, which a
// learned W_qkv absorbs). Unlike the theory paper's sum of per-head d×d
// value maps, heads are concatenated and mixed by W_o, as in every trained
// transformer; biases are optional (Config.NoBias).
//
// Linear weights are stored input-major ([in, out]), so a layer computes
// Y = X·W + b on row-major activations.
//
// # Training
//
// [Model.Backprop] computes the weighted cross-entropy of [Loss] over a
// batch of variable-length sequences, packed without padding, and adds the
// gradient of every parameter; targets are class labels or distributions
// (soft labels), with per-position weights so that only the positions that
// predict an action count. [Train] runs Adam or AdamW ([Adam]; Kingma and Ba
// 2015, Loshchilov and Hutter 2019) with optional gradient clipping
// ([ClipGradNorm]) and learning-rate schedules ([ConstantLR],
// [WarmupCosine]) over shuffled minibatches, with early stopping on a loss
// or KL threshold or on validation patience, cancellation through a
// context.Context, progress callbacks, and checkpoints that resume exactly.
//
// Every parallel loop (rows of an activation, sequences × heads in
// attention, blocks of a matrix product, chunks of rows of a sum over rows)
// writes disjoint outputs and every reduction runs in a fixed order, so
// training gives bit-identical weights for any GOMAXPROCS. Sums over the
// rows of an activation (the bias and LayerNorm gradients) add fixed
// chunks of 64 rows in parallel and then the chunks in order; the
// embedding gradients split the table's rows; no two cores write to one
// cache line. The loops run on a small set of persistent worker
// goroutines shared by the package (up to GOMAXPROCS−1, started on first
// use, parked when idle) that poll for up to 200 µs after each loop, so
// that the short loops of a small training step do not pay for waking a
// thread each; a second model trained at the same time by another
// goroutine runs its loops serially while the workers are busy.
//
// A training step keeps O(L·n·(d + ff)) activations for n positions: the
// attention weights (heads·n_s² for a sequence of length n_s) are not
// kept from the forward pass to the backward pass but computed again
// there from the scores, with each row's maximum and normaliser kept by
// the forward pass, in one pass of exponentials, to the same bits. On
// amd64 CPUs with AVX2 the LayerNorm, the sums over rows, the ReLU and the
// softmax run on vector kernels (the softmax sixteen entries at a time on
// CPUs with AVX-512, with the same bits as eight at a time) that give the
// bits of their Go code (as built below GOAMD64=v3, where the compiler
// does not fuse multiply-adds), except that the softmax's normaliser is
// summed in float64 in eight lanes where its Go code sums in one (the same
// bits unless a rounding of the sum changes its float32 inverse), so
// float32 weights can differ in their last bits between machines with and
// without AVX2.
//
// # Inference
//
// [Model.Forward] returns the logits of every position of a batch.
// [Session] decodes online with a key–value cache: appending one token or
// feature vector costs O(L·(d² + d·ff + t·d)) at position t and returns the
// same logits as the full forward pass.
//
// # Files
//
// [Model.Save] writes the configuration as JSON and the parameters as
// safetensors (see package safetensors), each atomically; [Load] checks
// dtypes, shapes, sizes and the configuration and reports truncated,
// corrupt or mismatched files as errors. [Import] reads PyTorch and GPT-2
// state dicts saved as safetensors, and [ImportGPT2Dir] a folder that
// Hugging Face transformers' save_pretrained wrote for GPT2LMHeadModel
// (config.json and model.safetensors, the tied language-model head
// included). Tensors of dtype F16, BF16, F32 or F64 are converted to the
// model's float type: widening is exact, narrowing rounds to nearest.
//
// # Costs
//
// A forward and backward pass over n positions in sequences of length at
// most T costs O(n·L·d·(d + ff) + n·T·L·d) time. Matrix products run on a
// blocked, register-tiled kernel (package internal/gemm).
//
// # Errors
//
// Functions fed caller data (configurations, sequences, targets, files)
// return an error that names the bad value and wraps one of [icrl.ErrInvalid],
// [icrl.ErrShape], [icrl.ErrNotFinite], [icrl.ErrTooLarge] (a parameter count past
// Config.MaxParams, checked before anything is allocated, or a sequence
// past MaxLen), [icrl.ErrNil], [ErrCheckpoint] (a file or checkpoint that does
// not fit the model) or [ErrZeroModel] (a Model not built by New, Load or
// Import); test with errors.Is. The per-token methods of a decoding
// Session return errors too; only the unexported kernels panic.
//
// # References
//
//   - A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, arXiv
//     1706.03762 (the architecture).
//   - A. Radford et al., "Language Models are Unsupervised Multitask
//     Learners", OpenAI 2019 (GPT-2, the pre-norm layout of
//     [GPT2Layout]).
//   - D. P. Kingma and J. Ba, "Adam: A Method for Stochastic Optimization",
//     ICLR 2015, arXiv 1412.6980; I. Loshchilov and F. Hutter, "Decoupled
//     Weight Decay Regularization", ICLR 2019, arXiv 1711.05101 (AdamW).
//   - "Provable Strategic In-Context Learning of Transformers", anonymous
//     ICLR 2026 submission, OpenReview cCm2EX7MUb (the position-normalised ReLU attention of its theory).
package transformer
