package poker

import (
	"fmt"
	"math/bits"
)

// A Category is the class of a five-card poker hand, from HighCard to
// StraightFlush (a royal flush is the ace-high straight flush).
type Category int

// The categories, weakest first.
const (
	HighCard Category = iota
	OnePair
	TwoPair
	ThreeOfAKind
	Straight
	Flush
	FullHouse
	FourOfAKind
	StraightFlush
)

// String returns the category's name.
func (c Category) String() string {
	switch c {
	case HighCard:
		return "high card"
	case OnePair:
		return "one pair"
	case TwoPair:
		return "two pair"
	case ThreeOfAKind:
		return "three of a kind"
	case Straight:
		return "straight"
	case Flush:
		return "flush"
	case FullHouse:
		return "full house"
	case FourOfAKind:
		return "four of a kind"
	case StraightFlush:
		return "straight flush"
	}
	return fmt.Sprintf("Category(%d)", int(c))
}

// A Rank orders hands: a larger Rank is a better hand and equal Ranks tie.
// It holds the category in bits 20 and up and the ranks that break ties
// within it, most significant first, four bits each.
type Rank uint32

// Category returns the hand's category.
func (r Rank) Category() Category { return Category(r >> 20) }

// rank packs a category and its first tie-breaking ranks (slots 0, 1).
func rank(c Category, k0, k1 int) Rank {
	r := Rank(c) << 20
	if k0 >= 0 {
		r |= Rank(k0) << 16
	}
	if k1 >= 0 {
		r |= Rank(k1) << 12
	}
	return r
}

// kick packs the n highest ranks set in m into the tie-breaking slots from
// slot from on.
func kick(m uint16, n, from int) Rank {
	var r Rank
	for i := from; i < from+n && m != 0; i++ {
		k := 15 - bits.LeadingZeros16(m)
		r |= Rank(k) << (16 - 4*i)
		m &^= 1 << k
	}
	return r
}

// Eval7 ranks the seven cards c by their best five: the hand's [Rank]. The
// cards must be distinct and below [Cards] (it does not check; a repeated
// card gives a meaningless rank). It allocates nothing and costs a few
// dozen operations.
func Eval7(c [7]Card) Rank {
	var counts [13]uint8
	var suitMask [4]uint16
	var suitCount [4]uint8
	var mask uint16
	for _, x := range c {
		r, s := x.Rank(), x.Suit()
		counts[r]++
		suitMask[s] |= 1 << r
		suitCount[s]++
		mask |= 1 << r
	}
	for s := range 4 {
		if suitCount[s] >= 5 {
			if hi := straightHigh(suitMask[s]); hi >= 0 {
				return rank(StraightFlush, hi, -1)
			}
		}
	}
	quad, trip1, trip2, pair1, pair2 := -1, -1, -1, -1, -1
	for r := 12; r >= 0; r-- {
		switch counts[r] {
		case 4:
			quad = r
		case 3:
			if trip1 < 0 {
				trip1 = r
			} else if trip2 < 0 {
				trip2 = r
			}
		case 2:
			if pair1 < 0 {
				pair1 = r
			} else if pair2 < 0 {
				pair2 = r
			}
		}
	}
	if quad >= 0 {
		return rank(FourOfAKind, quad, -1) | kick(mask&^(1<<quad), 1, 1)
	}
	if trip1 >= 0 {
		p := max(pair1, trip2) // a second trips plays as the pair
		if p >= 0 {
			return rank(FullHouse, trip1, p)
		}
	}
	for s := range 4 {
		if suitCount[s] >= 5 {
			return rank(Flush, -1, -1) | kick(suitMask[s], 5, 0)
		}
	}
	if hi := straightHigh(mask); hi >= 0 {
		return rank(Straight, hi, -1)
	}
	if trip1 >= 0 {
		return rank(ThreeOfAKind, trip1, -1) | kick(mask&^(1<<trip1), 2, 1)
	}
	if pair2 >= 0 {
		return rank(TwoPair, pair1, pair2) | kick(mask&^(1<<pair1|1<<pair2), 1, 2)
	}
	if pair1 >= 0 {
		return rank(OnePair, pair1, -1) | kick(mask&^(1<<pair1), 3, 1)
	}
	return rank(HighCard, -1, -1) | kick(mask, 5, 0)
}

// straightHigh returns the rank of the highest card of the best straight
// in the rank mask m, or −1 if there is none (the wheel, A-2-3-4-5, is
// five-high: 3).
func straightHigh(m uint16) int {
	for hi := 12; hi >= 4; hi-- {
		w := uint16(0x1f) << (hi - 4)
		if m&w == w {
			return hi
		}
	}
	const wheel = 1<<12 | 0xf
	if m&wheel == wheel {
		return 3
	}
	return -1
}
