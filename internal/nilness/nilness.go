// Package nilness tells whether an interface value is nil or holds a nil
// pointer (a typed nil), the one check behind the module's rule that a
// typed nil is treated like nil.
package nilness

import "reflect"

// Is reports whether v is nil or holds a nil pointer, map, slice, channel
// or function: a value on which the methods of the module's types would
// dereference nil.
func Is(v any) bool {
	if v == nil {
		return true
	}
	switch r := reflect.ValueOf(v); r.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func, reflect.Interface:
		return r.IsNil()
	}
	return false
}
