package mlirtext

import "testing"

func TestSpelling(t *testing.T) {
	for in, want := range map[string]string{
		"main_graph": "@main_graph", "a.b$c": "@a.b$c", "_x9": "@_x9",
		"9x": `@"9x"`, "a-b": `@"a-b"`, "": `@""`, "a\"b": `@"a\22b"`, "é": `@"\C3\A9"`,
	} {
		if got := SymbolRef(in); got != want {
			t.Errorf("SymbolRef(%q) = %s, want %s", in, got, want)
		}
	}
	if got, want := Quote("a\\b\n\x00"), `"a\5Cb\0A\00"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
	for _, s := range []string{"", "a\\b\n\x00", "q\"é\x7f\xff~ "} {
		if got, want := string(AppendQuote([]byte("x"), s)), "x"+Quote(s); got != want {
			t.Errorf("AppendQuote(%q) = %s, want %s", s, got, want)
		}
	}
}
