package control_test

import (
	"context"
	"fmt"

	"github.com/icrl-go/icrl/control"
)

// The paper's §6 experiment at two action levels: the quantised training
// value never increases along the nested action sets.
func ExampleRunSection6() {
	rows, err := control.RunSection6(context.Background(), control.Section6Config{MaxActions: 20, Seed: 3})
	if err != nil {
		panic(err)
	}
	for _, r := range rows {
		fmt.Printf("M = %d: quantised %.4f, train %.4f, test %.4f, nodes %d\n",
			r.M, r.Value, r.TrainPerToken, r.TestPerToken, r.Nodes)
	}
	// Output:
	// M = 10: quantised 0.1780, train 0.1986, test 0.1835, nodes 111
	// M = 20: quantised 0.0533, train 0.0471, test 0.0557, nodes 421
}
