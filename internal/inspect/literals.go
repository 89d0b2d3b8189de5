package inspect

import "slices"

// The phrase heuristics gate their expressions on literal words: a need
// list one of whose words must be in the text, and a near list one of
// whose words must follow the anchor closely. Looking each word up with
// bytes.Contains costs a pass over the text per word, and there are a few
// hundred of them: on a guarded session's every answer that was most of
// the inspection. An Aho-Corasick automaton finds every occurrence of
// every word in one pass instead, and the gates read its positions.

// litSearch is an Aho-Corasick automaton over the words of some sets.
type litSearch struct {
	class [256]uint8 // byte -> column of next; 0 for a byte no word holds
	ncols int
	// next is state*ncols + column -> state: the goto function completed
	// by the failure links, with a state that ends a word stored as ^state,
	// so that the scan reads its outputs only there: every byte of a text
	// goes through next, and most reach no word's end.
	next   []int32
	out    [][]int32 // state -> the words that end there (its own and its failure chain's)
	lens   []int32   // word -> length
	setsOf [][]int32 // word -> the sets that hold it
	nsets  int
}

// span is one occurrence of a word of a set: [a, z) in the text.
type span struct{ a, z int32 }

// newLitSearch builds the automaton for sets of words (a word in several
// sets is one word).
func newLitSearch(sets [][][]byte) *litSearch {
	ls := &litSearch{nsets: len(sets)}
	ids := map[string]int32{}
	var words [][]byte
	for si, set := range sets {
		for _, w := range set {
			id, ok := ids[string(w)]
			if !ok {
				id = int32(len(words))
				ids[string(w)] = id
				words = append(words, w)
				ls.lens = append(ls.lens, int32(len(w)))
				ls.setsOf = append(ls.setsOf, nil)
			}
			if !slices.Contains(ls.setsOf[id], int32(si)) {
				ls.setsOf[id] = append(ls.setsOf[id], int32(si))
			}
		}
	}
	col := 1
	for _, w := range words {
		for _, c := range w {
			if ls.class[c] == 0 {
				ls.class[c] = uint8(col)
				col++
			}
		}
	}
	ls.ncols = col
	// The trie.
	type node struct {
		child map[uint8]int32
		out   []int32
	}
	nodes := []node{{child: map[uint8]int32{}}}
	for id, w := range words {
		s := int32(0)
		for _, c := range w {
			k := ls.class[c]
			n, ok := nodes[s].child[k]
			if !ok {
				n = int32(len(nodes))
				nodes = append(nodes, node{child: map[uint8]int32{}})
				nodes[s].child[k] = n
			}
			s = n
		}
		nodes[s].out = append(nodes[s].out, int32(id))
	}
	// Breadth first: each state's failure link, its completed row, and its
	// output merged with its failure's.
	ls.next = make([]int32, len(nodes)*ls.ncols)
	ls.out = make([][]int32, len(nodes))
	fail := make([]int32, len(nodes))
	queue := []int32{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		ls.out[s] = append(slices.Clone(nodes[s].out), ls.out[fail[s]]...)
		if s == 0 {
			ls.out[0] = slices.Clone(nodes[0].out)
		}
		for k := 1; k < ls.ncols; k++ {
			n, ok := nodes[s].child[uint8(k)]
			if !ok {
				if s != 0 {
					ls.next[int(s)*ls.ncols+k] = ls.next[int(fail[s])*ls.ncols+k]
				}
				continue
			}
			ls.next[int(s)*ls.ncols+k] = n
			if s != 0 {
				fail[n] = ls.next[int(fail[s])*ls.ncols+k]
			}
			queue = append(queue, n)
		}
	}
	for i, n := range ls.next {
		if len(ls.out[n]) > 0 {
			ls.next[i] = ^n
		}
	}
	return ls
}

// scan finds every occurrence of every word in text and returns, per set,
// its words' occurrences ordered by start, in occ's storage.
func (ls *litSearch) scan(text []byte, occ [][]span) [][]span {
	if cap(occ) < ls.nsets {
		occ = make([][]span, ls.nsets)
	}
	occ = occ[:ls.nsets]
	for i := range occ {
		occ[i] = occ[i][:0]
	}
	s := int32(0)
	ncols := int32(ls.ncols)
	for i, c := range text {
		k := int32(ls.class[c])
		if k == 0 {
			s = 0
			continue
		}
		if s = ls.next[s*ncols+k]; s >= 0 {
			continue
		}
		s = ^s
		for _, id := range ls.out[s] {
			z := int32(i + 1)
			for _, set := range ls.setsOf[id] {
				occ[set] = append(occ[set], span{z - ls.lens[id], z})
			}
		}
	}
	for i := range occ {
		if !slices.IsSortedFunc(occ[i], cmpSpan) {
			slices.SortFunc(occ[i], cmpSpan)
		}
	}
	return occ
}

func cmpSpan(x, y span) int { return int(x.a - y.a) }
