package niro

import "testing"

// TestDefTable checks the verifier's definition table on dense IDs, on an
// ID far beyond them (kept in the map) and on dense IDs that later reach
// past one kept in the map.
func TestDefTable(t *testing.T) {
	var tab defTable
	ids := []ValueID{0, 1, 5, 3000, 1 << 30, 2000, 2999, 4000000000}
	for i, id := range ids {
		if _, ok := tab.get(id); ok {
			t.Fatalf("id %d found before it was set", id)
		}
		tab.set(id, defSite{index: int32(i)})
	}
	// Grow the dense part past 3000, which went to the map.
	for id := ValueID(0); id < 5000; id++ {
		if _, ok := tab.get(id); !ok {
			tab.set(id, defSite{index: -1})
		}
	}
	for i, id := range ids {
		d, ok := tab.get(id)
		if !ok || d.index != int32(i) {
			t.Errorf("get(%d) = %+v, %v; want index %d", id, d, ok, i)
		}
	}
	if len(tab.dense) > 5000+denseSlack {
		t.Errorf("dense table has %d entries for IDs up to 5000", len(tab.dense))
	}
	if _, ok := tab.get(7000); ok {
		t.Errorf("id 7000 found but never set")
	}
}

// TestDefTableSparseChain checks that IDs which each lie just inside the
// dense table's reach cannot grow it geometrically: a dozen
// definitions keep it near their count (FuzzParse found such a module
// exhausting memory when the reach was twice the table's own length).
func TestDefTableSparseChain(t *testing.T) {
	var tab defTable
	id := int64(0)
	for i := 0; i < 12; i++ {
		tab.set(ValueID(id), defSite{index: int32(i)})
		id = 2*(id+1) + denseSlack - 1
	}
	if max := 2*12 + denseSlack; len(tab.dense) > max {
		t.Fatalf("dense table has %d entries for 12 definitions, want at most %d", len(tab.dense), max)
	}
	id = 0
	for i := 0; i < 12; i++ {
		if d, ok := tab.get(ValueID(id)); !ok || d.index != int32(i) {
			t.Errorf("get(%d) = %+v, %v; want index %d", id, d, ok, i)
		}
		id = 2*(id+1) + denseSlack - 1
	}
}
