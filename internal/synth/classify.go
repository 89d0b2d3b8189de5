package synth

import (
	"strings"
	"unicode"
)

// Class is what a tool's name (or a description's leading verb, or an
// argument value) says the tool does, read as a person would.
type Class int

const (
	// Neutral: nothing in the text says read or write ("echo",
	// "directory_tree", "sequentialthinking").
	Neutral Class = iota
	// Read: the text reads as a read ("get_issue", "list_workflow_runs",
	// "redis_info").
	Read
	// Write: the text reads as a write ("create_issue", "hset",
	// "getOrCreateUser", "list_and_delete").
	Write
)

func (c Class) String() string {
	switch c {
	case Read:
		return "read"
	case Write:
		return "write"
	}
	return "neutral"
}

// Words are matched whole after a name is cut into words (see Words), so
// "settings" is not "set" and "offset" is not "set".
//
// strongWrites are write verbs that are rarely anything else: wherever one
// appears in a name, in any inflection ("deleted", "updates"), the name
// reads as a write. A read that carries one ("get_deleted_items",
// "getUpdates") is skipped: the cautious reading costs one warm-up target,
// the other a user's data.
var strongWrites = words(`create delete del remove rm rmdir unlink update upsert write
	overwrite insert erase destroy purge truncate wipe flush flushdb flushall modify rename
	replace exec execute eval kill terminate install uninstall unset reset clear drop send
	publish upload mutate cleanup prune`)

// weakWrites are verbs that are nouns too ("list_workflow_runs",
// "get_post", "list_merge_requests", "get_commit"). One reads as a write
// only where a verb stands: as the name's first verb (no read verb before
// it: "run_workflow", "json_set", "issue_comment"), or right after a
// conjunction ("fetch_and_store"). Redis's command names are here too
// (hset, lpush, zadd, ...): a Redis server's tools are often named after
// them.
var weakWrites = words(`add set post put patch move mv copy cp run rerun start stop restart
	push pull merge commit comment reply react like star unstar follow unfollow fork clone
	tag untag label assign unassign approve reject dismiss cancel close archive unarchive mark
	flag pin unpin lock unlock enable disable toggle trigger invoke call apply deploy rollback
	restore scale schedule book order buy sell pay refund charge transfer invite share
	subscribe unsubscribe submit save store import sync new make navigate click type press
	fill drag drop download login logout register connect disconnect attach detach link
	mount unmount append prepend increment decrement incr incrby decr decrby expire pexpire
	expireat persist hset hmset hsetnx hdel hincrby lpush rpush lpushx rpushx lpop rpop blpop
	brpop pop lset lrem ltrim linsert sadd srem spop smove zadd zrem zincrby zpopmin zpopmax
	xadd xdel xtrim xack mset msetnx setex psetex setnx setrange getset getdel getex mkdir
	touch chmod chown notify email tweet dm broadcast emit track record log init initialize
	setup configure provision allocate release grant revoke ban kick mute unmute block unblock
	report request claim accept decline confirm complete finish reopen edit change alter
	handle respond vote rate review migrate seed refresh reload reboot shutdown halt suspend
	resume pause play skip queue enqueue dequeue retry dispatch fire spawn launch shell bash
	sh cmd generate rotate upgrade downgrade clean rewrite`)

// readVerbs read as a read where a verb stands. A weak write after one is
// its object ("get_post", "list_merge_requests").
var readVerbs = words(`get list read search describe show find query fetch view count
	retrieve lookup inspect explain browse peek preview check validate verify analyze analyse
	compare diff scan grep ls cat stat is has lrange hget hgetall hmget hkeys hvals hlen
	hexists llen lindex smembers sismember scard zrange zscore zcard zrank xrange xlen mget
	strlen getrange`)

// descReads are leading verbs that read as a read in a description only
// ("Returns the forecast", "Provides the schema"): as a tool's name,
// "return_item" may well be a write.
var descReads = words(`return returns provide display print output give obtain`)

// readNouns make a name a read when no verb says otherwise ("redis_info",
// "cluster_status"), but do not stand where a verb stands: "info_set" is
// a set.
var readNouns = words(`status info stats statistics health version versions whoami me
	ping help dbsize ttl pttl exists keys metadata details summary schema schemas docs
	tree env environment`)

// conjunctions join two verbs: what follows one stands where a verb stands.
var conjunctions = words(`and or then plus`)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// Words cuts a tool name into lower-case words: at every character that is
// not a letter or digit (snake_case, kebab-case, dotted, slash and
// namespaced forms such as "mcp__github__create_issue"), and at camelCase
// and PascalCase boundaries ("getOrCreateUser" is get, or, create, user;
// "HTTPServerList" is http, server, list).
func Words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// strong reports whether w is a strong write verb in some inflection.
func strong(w string) bool {
	for _, s := range stems(w) {
		if strongWrites[s] {
			return true
		}
	}
	return false
}

// stems are w and the forms it may be an inflection of: "deletes" ->
// delete, "searches" -> search, "created" -> create, "updating" -> update,
// "dropped" -> drop.
func stems(w string) []string {
	out := []string{w}
	for _, suf := range []string{"es", "s", "ed", "d", "ing"} {
		if b, ok := strings.CutSuffix(w, suf); ok && len(b) >= 2 {
			out = append(out, b)
			if suf == "ing" || suf == "ed" {
				out = append(out, b+"e")
				// dropped -> drop, setting -> set
				if n := len(b); n >= 3 && b[n-1] == b[n-2] {
					out = append(out, b[:n-1])
				}
			}
		}
	}
	return out
}

// ClassifyName says what a tool name reads as. Any strong write verb makes
// it a write; so does a weak one where a verb stands (first verb, or after
// a conjunction). Otherwise a read verb or read noun makes it a read.
func ClassifyName(name string) Class {
	return classifyWords(Words(name))
}

func classifyWords(ws []string) Class {
	sawVerb, read := false, false
	for i, w := range ws {
		if strong(w) {
			return Write
		}
		verbSlot := !sawVerb || (i > 0 && conjunctions[ws[i-1]])
		switch {
		case weakWrites[w] && verbSlot:
			return Write
		case readVerbs[w]:
			sawVerb, read = true, true
		case weakWrites[w]:
			// the object of an earlier read verb: "get_run".
		case readNouns[w]:
			read = true
		}
	}
	if read {
		return Read
	}
	return Neutral
}

// descFiller are words a description opens with before its verb: "Use
// this tool to create ...", "A tool that returns ...", "Tool to delete".
var descFiller = words(`this tool tools the a an use used to that allows allow you lets let
	will can helps for mcp function api endpoint please simply i we it which`)

// ClassifyDescription says what a description's leading verb reads as: the
// first word of its first sentence after the usual preamble ("Use this
// tool to"), in any inflection ("Creates", "Gets"), and, after a read, a
// write joined to it ("Get or set ...", "Reads and updates ..."). The rest
// of the text is not read: "Gets an item; never deletes it" is a read.
func ClassifyDescription(desc string) Class {
	first := desc
	if i := strings.IndexAny(first, ".\n:;!?"); i >= 0 {
		first = first[:i]
	}
	ws := Words(first)
	for len(ws) > 0 && descFiller[ws[0]] {
		ws = ws[1:]
	}
	if len(ws) == 0 {
		return Neutral
	}
	verb := func(w string) Class {
		for _, s := range stems(w) {
			switch {
			case strongWrites[s] || weakWrites[s]:
				return Write
			case readVerbs[s] || descReads[s]:
				return Read
			}
		}
		return Neutral
	}
	c := verb(ws[0])
	if c == Read && len(ws) >= 3 && conjunctions[ws[1]] && verb(ws[2]) == Write {
		return Write
	}
	return c
}
