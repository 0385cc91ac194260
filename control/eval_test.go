package control

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestEvalContinuousGolden(t *testing.T) {
	b := goldenBlock[float64]()
	u := goldenAction[float64](t)
	X := [][][]float64{goldenX}
	Y := [][][]float64{SelfAttentionTarget(goldenX, 0.3)}
	perTok, perSeq, err := EvalContinuous(b, []Action[float64]{*u}, dataset(X, Y))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(perTok-goldenMSE) > 1e-13 || math.Abs(perSeq-3*goldenMSE) > 3e-13 {
		t.Errorf("EvalContinuous = (%.16g, %.16g), want (%.16g, 3×)", perTok, perSeq, goldenMSE)
	}
	// The target is realisable in one layer (with the golden action): zero error.
	ua, _ := SelfAttentionAction(goldenDims, 0.3, 0.5)
	if perTok, _, err := EvalContinuous(b, []Action[float64]{*ua}, dataset(X, Y)); err != nil || perTok > 1e-30 {
		t.Errorf("EvalContinuous of the realising action = %g, %v", perTok, err)
	}
	// float32.
	b32 := goldenBlock[float32]()
	u32 := goldenAction[float32](t)
	x32 := tokensF[float32](goldenX)
	p32, _, err := EvalContinuous(b32, []Action[float32]{*u32}, dataset([][][]float32{x32}, [][][]float32{SelfAttentionTarget(x32, 0.3)}))
	if err != nil || math.Abs(p32-goldenMSE) > 1e-5 {
		t.Errorf("float32 EvalContinuous = %v, %v", p32, err)
	}
}

// Continuous part of the deployment test: EvalContinuous equals the mean
// squared error of Forward on the data.
func TestEvalContinuousConsistency(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	d := Dims{2, 2, 2}
	b := Block[float64]{Dims: d, Beta: 0.5, Sigma: ReLU[float64]{}}
	const K, N = 7, 4
	X := make([][][]float64, K)
	Y := make([][][]float64, K)
	for k := range K {
		X[k] = randTokens(N, 2, rng)
		Y[k] = SelfAttentionTarget(X[k], 0.3)
	}
	for T := range 4 {
		us := make([]Action[float64], T)
		for t := range us {
			us[t] = *randomAction(d, -1, 1, rng)
		}
		var s float64
		for k := range K {
			out := b.Forward(X[k], us)
			for i := range N {
				for c := range 2 {
					e := out[i][c] - Y[k][i][c]
					s += e * e
				}
			}
		}
		want := s / (N * K)
		perTok, perSeq, err := EvalContinuous(b, us, dataset(X, Y))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(perTok-want) > 1e-13*max(1, want) || math.Abs(perSeq-N*perTok) > 1e-15*perSeq {
			t.Errorf("T=%d: EvalContinuous = (%v, %v), Forward gives %v", T, perTok, perSeq, want)
		}
	}
}

func TestEvalContinuousErrors(t *testing.T) {
	b := goldenBlock[float64]()
	u := *goldenAction[float64](t)
	us := []Action[float64]{u}
	data := dataset([][][]float64{goldenX, goldenX}, [][][]float64{goldenTarget, goldenTarget})
	if _, _, err := EvalContinuous(b, us, data); err != nil {
		t.Fatal(err)
	}
	bad := func(name, want string, b Block[float64], us []Action[float64], d Dataset[float64]) {
		t.Helper()
		_, _, err := EvalContinuous(b, us, d)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, want)
		}
	}
	nanX := [][]float64{{0.5, -0.25}, {math.NaN(), 0.75}, {0.2, 0.9}}
	wide := NewZeroAction[float64](Dims{2, 3, 2})
	badU := u.Clone()
	badU.Q[2] = math.Inf(1)
	bad("no data", "no input array", b, us, Dataset[float64]{})
	bad("label count", "but label array [1 3 2]", b, us, Dataset[float64]{X: data.X, Y: dense3([][][]float64{goldenTarget})})
	bad("token dim", "want D = 2", b, us, dataset([][][]float64{{{1}}}, [][][]float64{{{1}}}))
	bad("non-finite input", "input token (1, 1) entry 0 = NaN", b, us, dataset([][][]float64{goldenX, nanX}, [][][]float64{goldenTarget, goldenTarget}))
	bad("action dims", "action 1 has dims", b, []Action[float64]{u, *wide}, data)
	bad("non-finite action", "action 0: icrl: not finite: action entry Q[1,0] = +Inf", b, []Action[float64]{*badU}, data)
	bad("bad beta", "β = 0", Block[float64]{Dims: goldenDims}, us, data)
	big := u.Clone()
	for i := range big.W {
		big.W[i] = 1e300
	}
	bad("overflow", "overflowed", b, []Action[float64]{*big, *big}, data)
}
