package nilness

import "testing"

type impl struct{}

func (*impl) M() {}

type m interface{ M() }

func TestIs(t *testing.T) {
	var p *impl
	var i m = p
	var f func()
	for _, c := range []struct {
		v    any
		want bool
	}{{nil, true}, {p, true}, {i, true}, {f, true}, {[]int(nil), true}, {&impl{}, false}, {impl{}, false}, {3, false}, {[]int{}, false}} {
		if got := Is(c.v); got != c.want {
			t.Errorf("Is(%#v) = %v, want %v", c.v, got, c.want)
		}
	}
}
