package incontext_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/icrl-go/icrl/learner/incontext"
)

// FuzzEncode feeds arbitrary rounds — states, actions, opponents' actions,
// rewards, action sets, in range or not, finite or not — to the game
// encoders (decentralized and joint-action) and the bandit encoder in token
// and feature modes. Encode must never panic; what it accepts must
// give tokens inside the vocabulary, finite features of the encoder's
// width, and one prediction position a round plus the query.
func FuzzEncode(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{2, 5, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f})
	f.Fuzz(func(t *testing.T, b []byte) {
		type rec struct {
			obs, action int
			reward      float64
		}
		var recs []rec
		for p := b; len(p) >= 10; p = p[10:] {
			recs = append(recs, rec{int(int8(p[0])), int(int8(p[1])), math.Float64frombits(binary.LittleEndian.Uint64(p[2:10]))})
		}
		if len(recs) == 0 {
			return
		}
		for _, enc := range []incontext.GameEncoder{{States: 2, Actions: 3}, {States: 1, Actions: 2, Features: true},
			{States: 2, Actions: 3, Opponents: 2}, {States: 1, Actions: 2, Opponents: 3, Features: true}} {
			rounds := make([]incontext.Round[int], len(recs)-1)
			for i, r := range recs[:len(recs)-1] {
				// The opponent's action: the action of the round after.
				rounds[i] = incontext.Round[int]{Obs: r.obs, Action: r.action, Opponent: recs[i+1].action, Reward: r.reward}
			}
			tokens, feats, predict, err := incontext.Encode[int](enc, rounds, recs[len(recs)-1].obs)
			if err != nil {
				continue
			}
			vocab, width, _ := enc.Shape()
			checkEncoded(t, tokens, feats, predict, vocab, width, len(rounds))
		}
		// Bandit: the rounds' rewards and arms; the action sets from the
		// states, scaled into features.
		enc := incontext.BanditEncoder{Dim: 2, Arms: 2}
		set := func(r rec) [][]float64 {
			return [][]float64{{float64(r.obs) / 10, r.reward}, {1, float64(r.action)}}
		}
		rounds := make([]incontext.Round[[][]float64], len(recs)-1)
		for i, r := range recs[:len(recs)-1] {
			rounds[i] = incontext.Round[[][]float64]{Obs: set(r), Action: r.action, Reward: r.reward}
		}
		tokens, feats, predict, err := incontext.Encode[[][]float64](enc, rounds, set(recs[len(recs)-1]))
		if err == nil {
			vocab, width, _ := enc.Shape()
			checkEncoded(t, tokens, feats, predict, vocab, width, len(rounds))
		}
	})
}

func checkEncoded(t *testing.T, tokens []int, feats []float64, predict []int, vocab, width, rounds int) {
	t.Helper()
	if len(predict) != rounds+1 {
		t.Fatalf("%d prediction positions for %d rounds", len(predict), rounds)
	}
	n := len(tokens)
	if width > 0 {
		if len(feats)%width != 0 {
			t.Fatalf("%d features, width %d", len(feats), width)
		}
		n = len(feats) / width
		for i, v := range feats {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("feature %d is %v", i, v)
			}
		}
	} else {
		for i, tok := range tokens {
			if tok < 0 || tok >= vocab {
				t.Fatalf("token %d is %d, vocabulary %d", i, tok, vocab)
			}
		}
	}
	for k, p := range predict {
		if p < 0 || p >= n || (k > 0 && p <= predict[k-1]) {
			t.Fatalf("prediction positions %v for %d positions", predict, n)
		}
	}
}
