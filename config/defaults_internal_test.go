package config

import (
	"reflect"
	"testing"
)

// A run given no option gets exactly Defaults() (then Load's own steps):
// the loader and Defaults read the one default of each option.
func TestLoadGivenNothingIsDefaults(t *testing.T) {
	got, err := load(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	if err := want.finish(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("loaded with nothing given:\n%+v\nDefaults():\n%+v", got, want)
	}
}
