// Package poker holds what a river endgame of Texas hold'em needs from the
// public rules: cards, a seven-card hand evaluator and the endgame itself,
// a two-player zero-sum game in which each player sees its own hand only
// ([Endgame]). It is the stand-in for the poker endgame of
// multi-agent-meta-rl App. F.3 (a simplified "Endgame A" of the Brains vs
// AI match, whose ranges are not public): built from the paper's
// description, not that endgame.
//
// Cards are numbered 0–51 as 4·rank + suit, rank 0 being a deuce and 12 an
// ace. [Eval7] ranks a seven-card hand by its best five cards with the
// standard categories ([Category]); larger [Rank] values are better hands
// and equal values are ties.
//
// References: Mao, Qiu, Wang, Franke, Kalbarczyk, Iyer and Başar,
// "Multi-Agent Meta-Reinforcement Learning: Sharper Convergence Rates with
// Task Similarity", NeurIPS 2023 (App. F.3); Harris, Anagnostides and
// Sandholm, "Meta-Learning in Games", ICLR 2023 (its ref. [27], the
// endgames).
package poker

import (
	"fmt"
	"strings"

	"github.com/icrl-go/icrl"
)

// A Card is a playing card, 4·rank + suit with rank 0 (deuce) to 12 (ace)
// and suit 0 to 3.
type Card uint8

// Cards is the number of cards of the deck.
const Cards = 52

const rankChars, suitChars = "23456789TJQKA", "cdhs"

// Rank returns the card's rank, 0 (deuce) to 12 (ace).
func (c Card) Rank() int { return int(c) / 4 }

// Suit returns the card's suit, 0 to 3 (clubs, diamonds, hearts, spades).
func (c Card) Suit() int { return int(c) % 4 }

// String returns the card as rank and suit, "As" or "Td".
func (c Card) String() string {
	if c >= Cards {
		return fmt.Sprintf("Card(%d)", int(c))
	}
	return string(rankChars[c.Rank()]) + string(suitChars[c.Suit()])
}

// NewCard returns the card of rank (0–12) and suit (0–3).
func NewCard(rank, suit int) (Card, error) {
	if rank < 0 || rank > 12 || suit < 0 || suit > 3 {
		return 0, fmt.Errorf("%w: card of rank %d and suit %d", icrl.ErrInvalid, rank, suit)
	}
	return Card(4*rank + suit), nil
}

// ParseCards parses cards written as rank and suit ("As", "Td", "2c"),
// separated by spaces or not ("AsKd" or "As Kd"). It returns an error for
// a malformed card or a card given twice.
func ParseCards(s string) ([]Card, error) {
	s = strings.ReplaceAll(s, " ", "")
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("%w: cards %q: odd length", icrl.ErrInvalid, s)
	}
	var out []Card
	var seen uint64
	for i := 0; i < len(s); i += 2 {
		r := strings.IndexByte(rankChars, strings.ToUpper(s[i : i+1])[0])
		u := strings.IndexByte(suitChars, strings.ToLower(s[i+1 : i+2])[0])
		if r < 0 || u < 0 {
			return nil, fmt.Errorf("%w: card %q", icrl.ErrInvalid, s[i:i+2])
		}
		c := Card(4*r + u)
		if seen&(1<<c) != 0 {
			return nil, fmt.Errorf("%w: card %v given twice", icrl.ErrInvalid, c)
		}
		seen |= 1 << c
		out = append(out, c)
	}
	return out, nil
}
