package headroom

import "testing"

func TestAhead(t *testing.T) {
	tests := []struct {
		name        string
		len, cap, n int
		grows       bool
	}{
		{"room enough", 2, 8, 6, false},
		{"exactly full", 8, 8, 0, false},
		{"one short", 4, 8, 5, true},
		{"empty nil", 0, 0, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s []int
			if tt.cap > 0 {
				s = make([]int, tt.len, tt.cap)
				s[0] = 7
			}
			got := Ahead(s, tt.n)
			if len(got) != tt.len {
				t.Fatalf("len %d, want %d", len(got), tt.len)
			}
			if cap(got)-len(got) < tt.n {
				t.Fatalf("room %d, want at least %d", cap(got)-len(got), tt.n)
			}
			if grew := cap(got) != cap(s); grew != tt.grows {
				t.Fatalf("grew %v, want %v", grew, tt.grows)
			}
			if tt.grows && cap(got) < tt.len+2*tt.n {
				t.Fatalf("cap %d, want at least %d: room for the next highs too", cap(got), tt.len+2*tt.n)
			}
			if tt.len > 0 && got[0] != 7 {
				t.Fatalf("contents lost")
			}
		})
	}
}
