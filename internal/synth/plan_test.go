package synth

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestWords: every naming style real servers use is cut into words.
func TestWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"create_issue", "create issue"},
		{"delete-ai-config", "delete ai config"},
		{"getOrCreateUser", "get or create user"},
		{"HTTPServerList", "http server list"},
		{"github.create_issue", "github create issue"},
		{"slack/add_reaction", "slack add reaction"},
		{"mcp__github__get_me", "mcp github get me"},
		{"API-post-search", "api post search"},
		{"s3PutObject", "s3 put object"},
		{"getV2Items", "get v2 items"},
		{"  ", ""},
	} {
		if got := strings.Join(Words(tc.in), " "); got != tc.want {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestClassifyName: real tool names, each read as a person would. The
// writes are the calls the warm-up must never make; the reads include
// write verbs used as nouns, which must not cost a server its warm-up.
func TestClassifyName(t *testing.T) {
	t.Parallel()
	writes := []string{
		// Redis (mcp-redis): SET and DEL were called on a local Redis.
		"set", "delete", "hset", "hdel", "lpush", "rpush", "lpop", "rpop", "sadd", "srem", "zadd", "zrem",
		"json_set", "json_del", "expire", "rename", "publish", "subscribe", "xadd", "xdel", "setex", "getset", "getdel",
		"set_vector_in_hash", "create_vector_index_hash", "incrby", "flushall",
		// LaunchDarkly, GitLab, Slack, server-memory 0.6.2.
		"create-feature-flag", "delete-ai-config", "update-feature-flag", "toggle-feature-flag",
		"create_repository", "create_merge_request", "merge_merge_request", "fork_repository",
		"add_reaction", "slack_add_reaction", "slack_post_message", "slack_reply_to_thread",
		"delete_entities", "create_entities", "create_relations", "add_observations", "delete_observations",
		// GitHub and filesystem servers.
		"create_or_update_file", "push_files", "merge_pull_request", "update_pull_request_branch",
		"run_workflow", "rerun_workflow_run", "cancel_workflow_run", "mark_all_notifications_read",
		"dismiss_notification", "request_copilot_review", "write_file", "edit_file", "move_file", "create_directory",
		// Conjunctions, camelCase, namespaces, inflections.
		"getOrCreateUser", "get_or_create", "list_and_delete", "fetch_and_store", "read-then-write",
		"mcp__github__create_issue", "github.create_issue", "issue_create", "sendMessage", "bulkDelete",
		"API-post-search", "API-patch-page", "s3PutObject", "execute_sql", "run_command", "kill_process",
		"getUpdates", "get_deleted_items", "dropTable", "browser_navigate", "browser_close", "browser_tab_new",
		"browser_type", "browser_install", "kubectl_apply", "kubectl_delete", "install_helm_chart", "exec_in_pod",
		"cleanup", "trigger-long-running-operation", "startElicitation", "uninstall_helm_chart",
		// Case and separators: Redis's own SET and DEL, spaces, paths.
		"SET", "DEL", "DELETE_USER", "Delete User", "tools/delete", "HTTPDelete", "deleteUser", "pods_exec", "pods_run",
	}
	reads := []string{
		"get", "list", "hget", "hgetall", "lrange", "smembers", "zrange", "json_get", "dbsize", "info", "scan_keys",
		"client_list", "get_indexes", "get_vector_from_hash", "search_redis_documents", "vector_search_hash",
		"get-feature-flag", "list-feature-flags", "get_repository", "list_merge_requests", "get_merge_request",
		"slack_list_channels", "slack_get_channel_history", "read_graph", "search_nodes",
		"get_pull_request", "list_pull_requests", "get_pull_request_status", "list_commits", "get_commit",
		"list_workflow_runs", "get_workflow_run", "get_workflow_run_logs", "search_code", "get_file_contents",
		"list_tags", "get_post", "get_comment", "list_orders", "get_me", "read_file", "list_allowed_directories",
		"get_file_info", "search_files", "getTinyImage", "API-get-user", "API-retrieve-a-page", "kubectl_get",
		"kubectl_describe", "list_api_resources", "ping", "cluster_status", "redis_info", "get_settings",
		"get_offset", "health", "get-env", "query-docs", "get-library-docs", "lookup_user", "is_enabled", "directory_tree", "printEnv",
	}
	neutral := []string{
		"echo", "sequentialthinking", "open_nodes", "resolve-library-id",
		"sampleLLM", "browser_snapshot", "browser_take_screenshot", "kubectl_context", "structuredContent",
		"settings", "dataset", "", "日本語",
	}
	for _, names := range []struct {
		want  Class
		names []string
	}{{Write, writes}, {Read, reads}, {Neutral, neutral}} {
		for _, n := range names.names {
			if got := ClassifyName(n); got != names.want {
				t.Errorf("ClassifyName(%q) = %s, want %s (words %q)", n, got, names.want, Words(n))
			}
		}
	}
}

func TestClassifyDescription(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc string
		want Class
	}{
		{"Creates a new feature flag.", Write},
		{"Use this tool to delete an entity", Write},
		{"Tool to send a message to a channel", Write},
		{"Get or set a value", Write},
		{"Reads and updates the config", Write},
		{"Sets the key.", Write},
		{"Get a recursive tree view of files and directories.", Read},
		{"Returns the forecast for a city.", Read},
		{"Retrieves an item. Never deletes anything.", Read},
		{"Searches the knowledge graph", Read},
		{"A tool that lists the open issues", Read},
		{"Echoes back the input", Neutral},
		{"A detailed tool for dynamic and reflective problem-solving", Neutral},
		{"", Neutral},
	} {
		if got := ClassifyDescription(tc.desc); got != tc.want {
			t.Errorf("ClassifyDescription(%q) = %s, want %s", tc.desc, got, tc.want)
		}
	}
}

func mkTool(name, desc, annotations, schema string) json.RawMessage {
	s := fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":%s`, name, desc, schema)
	if annotations != "" {
		s += `,"annotations":` + annotations
	}
	return json.RawMessage(s + `}`)
}

const (
	objSchema  = `{"type":"object"}`
	mcpGoHints = `{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}`
)

// TestSelect: which tools a warm-up call may use, and why not the others.
func TestSelect(t *testing.T) {
	t.Parallel()
	impossible := `{"type":"object","required":["x"],"additionalProperties":false}`
	tests := []struct {
		name  string
		tools []json.RawMessage
		want  string // called tools, then "|" and skipped tool=reason
	}{
		{"annotated read-only and read-named unannotated both, by name", []json.RawMessage{
			mkTool("search", "", `{"readOnlyHint":true}`, objSchema),
			mkTool("get_item", "", ``, objSchema),
			mkTool("echo", "", `{"readOnlyHint":true}`, objSchema),
		}, "echo get_item search|"},
		{"a write-like name is never called, annotated read-only or not", []json.RawMessage{
			mkTool("delete_entities", "", `{"readOnlyHint":true}`, objSchema),
			mkTool("create_issue", "", ``, objSchema),
			mkTool("set", "", `{"readOnlyHint":true,"destructiveHint":false}`, objSchema),
		}, "|create_issue=whose name reads as a write delete_entities=whose name reads as a write set=whose name reads as a write"},
		{"annotations that do not say read-only; destructiveHint means nothing beside readOnlyHint true (mcp-go's WithReadOnlyHintAnnotation)", []json.RawMessage{
			mkTool("get_a", "", `{"readOnlyHint":false}`, objSchema),
			mkTool("get_b", "", `{"destructiveHint":false}`, objSchema),
			mkTool("get_c", "", `{"readOnlyHint":true,"destructiveHint":true}`, objSchema),
			mkTool("pods", "", `{"readOnlyHint":true,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}`, objSchema),
		}, "get_c pods|get_a=annotated as not read-only get_b=annotated as not read-only"},
		{"mcp-go's blanket defaults count as no annotations", []json.RawMessage{
			mkTool("get_pods", "", mcpGoHints, objSchema),
			mkTool("list_things", "", `{"title":"List","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}`, objSchema),
			mkTool("delete_pod", "", mcpGoHints, objSchema),
			mkTool("pods", "Deletes a pod", mcpGoHints, objSchema),
		}, "get_pods list_things|delete_pod=whose name reads as a write pods=whose description reads as a write"},
		{"an author's own hints are not the blanket default", []json.RawMessage{
			mkTool("get_pods", "", `{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":true}`, objSchema),
		}, "|get_pods=annotated as not read-only"},
		{"hints other than read/write say nothing about writing", []json.RawMessage{
			mkTool("get_weather", "", `{"openWorldHint":true,"idempotentHint":true}`, objSchema),
		}, "get_weather|"},
		{"hints must be JSON booleans", []json.RawMessage{
			mkTool("get_s", "", `{"readOnlyHint":"false"}`, objSchema),
			mkTool("t", "", `{"readOnlyHint":1}`, objSchema),
		}, "get_s|t=with no annotation and no read-like name"},
		{"without annotations the description decides a neutral name", []json.RawMessage{
			mkTool("directory_tree", "Get a recursive tree view.", ``, objSchema),
			mkTool("echo", "Echoes back the input", ``, objSchema),
			mkTool("get_thing", "Creates the thing if missing, then returns it.", ``, objSchema),
		}, "directory_tree|echo=with no annotation and no read-like name get_thing=whose description reads as a write"},
		{"no arguments", []json.RawMessage{
			mkTool("get_x", "", ``, impossible),
		}, "|get_x=for which no arguments could be synthesized"},
		{"junk skipped, first of a name wins", []json.RawMessage{
			json.RawMessage(`[]`),
			json.RawMessage(`{"inputSchema":{}}`),
			json.RawMessage(`not json`),
			mkTool("get_dup", "", ``, objSchema),
			mkTool("get_dup", "", ``, impossible),
			mkTool("get_nil", "", ``, `null`),
		}, "get_dup get_nil|"},
		{"nothing", nil, "|"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, skips := Select(tt.tools)
			var called, skipped []string
			for _, c := range calls {
				called = append(called, c.Tool)
			}
			for _, s := range skips {
				skipped = append(skipped, s.Tool+"="+string(s.Reason))
			}
			slices.Sort(skipped)
			if got := strings.Join(called, " ") + "|" + strings.Join(skipped, " "); got != tt.want {
				t.Errorf("Select =\n %q\nwant\n %q", got, tt.want)
			}
		})
	}
}

// TestPlan: calls go round-robin over every eligible tool, so a one-tool
// decoy cannot absorb them; the first round already carries non-empty,
// realistic values; later rounds vary them and fill optional properties;
// write-like values are never chosen.
func TestPlan(t *testing.T) {
	t.Parallel()
	tools := []json.RawMessage{
		mkTool("search_notes", "", `{"readOnlyHint":true}`, `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","maximum":50}},"required":["query"]}`),
		mkTool("get_page", "", ``, `{"type":"object","properties":{"url":{"type":"string","format":"uri"},"unit":{"enum":["c","f"]},"n":{"type":"string","maxLength":2}},"required":["url"]}`),
		mkTool("read_file", "", ``, `{"type":"object","properties":{"path":{"type":"string"},"force":{"type":"boolean","examples":[true],"enum":[false,true]}},"required":["path","force"]}`),
		mkTool("get_mode", "", ``, `{"type":"object","properties":{"mode":{"enum":["delete","read"]}},"required":["mode"]}`),
		mkTool("get_op", "", ``, `{"type":"object","properties":{"op":{"const":"delete"}},"required":["op"]}`),
		mkTool("delete_everything", "", ``, objSchema),
	}
	dir := filepath.Join(string(filepath.Separator)+"run", "tmp")
	calls, skips := Plan(tools, 10, Values{Dir: dir})
	want := []string{
		`get_mode {"mode":"read"}`,
		`get_page {"url":"https://example.invalid/"}`,
		`read_file {"force":false,"path":"` + filepath.ToSlash(filepath.Join(dir, "notes.txt")) + `"}`,
		`search_notes {"query":"example"}`,
		`get_mode {"mode":"read"}`,
		`get_page {"n":"n","unit":"f","url":"https://example.invalid/a"}`,
		`read_file {"force":false,"path":"` + filepath.ToSlash(filepath.Join(dir, "docs", "README.md")) + `"}`,
		`search_notes {"limit":10,"query":"hello world"}`,
		`get_mode {"mode":"read"}`,
		`get_page {"n":"n","unit":"c","url":"https://example.invalid/b"}`,
	}
	if len(calls) != len(want) {
		t.Fatalf("got %d calls, want %d: %v", len(calls), len(want), calls)
	}
	for i, c := range calls {
		got := c.Tool + " " + strings.ReplaceAll(string(c.Arguments), `\\`, `/`)
		if got != want[i] {
			t.Errorf("call %d: %s\nwant     %s", i+1, got, want[i])
		}
	}
	var skipped []string
	for _, s := range skips {
		skipped = append(skipped, s.Tool+"="+string(s.Reason))
	}
	slices.Sort(skipped)
	if got, w := strings.Join(skipped, " "), "delete_everything=whose name reads as a write get_op=whose required argument takes only write-like values"; got != w {
		t.Errorf("skipped %q, want %q", got, w)
	}

	// The next launch goes on where the last stopped.
	more, _ := Plan(tools, 2, Values{Dir: dir, Start: 10})
	if len(more) != 2 || more[0].Tool != "read_file" || more[1].Tool != "search_notes" || string(more[1].Arguments) == `{"query":"example"}` {
		t.Errorf("Start 10: %v", more)
	}
	// Without a run dir paths are relative.
	rel, _ := Plan(tools[2:3], 1, Values{})
	if len(rel) != 1 || string(rel[0].Arguments) != `{"force":false,"path":"notes.txt"}` {
		t.Errorf("no dir: %v", rel)
	}
	if c, _ := Plan(nil, 5, Values{}); c != nil {
		t.Error("no tools must plan none")
	}
	if c, _ := Plan(tools, 0, Values{}); c != nil {
		t.Error("no calls must plan none")
	}
}

// TestPlanHarmless: values from the schema that name a real host or read
// as writes are never sent; a tool left with one in a required argument,
// however deep, is skipped.
func TestPlanHarmless(t *testing.T) {
	t.Parallel()
	tools := []json.RawMessage{
		mkTool("fetch_page", "", ``, `{"type":"object","properties":{"url":{"type":"string","examples":["https://api.github.com/repos"]}},"required":["url"]}`),
		mkTool("get_feed", "", ``, `{"type":"object","properties":{"url":{"type":"string","pattern":"^https://news\\.ycombinator\\.com/"}},"required":["url"]}`),
		mkTool("get_api", "", ``, `{"type":"object","properties":{"base":{"const":"https://api.openai.com/v1"}},"required":["base"]}`),
		mkTool("get_nested", "", ``, `{"type":"object","properties":{"o":{"type":"object","properties":{"op":{"const":"drop_table"}},"required":["op"]}},"required":["o"]}`),
		mkTool("get_local", "", ``, `{"type":"object","properties":{"url":{"type":"string","default":"https://docs.invalid/x"}},"required":["url"]}`),
	}
	calls, skips := Plan(tools, 2, Values{})
	var got []string
	for _, c := range calls {
		got = append(got, c.Tool+" "+string(c.Arguments))
	}
	if w := []string{`fetch_page {"url":"https://example.invalid/"}`, `get_local {"url":"https://docs.invalid/x"}`}; !slices.Equal(got, w) {
		t.Errorf("calls %q, want %q", got, w)
	}
	var skipped []string
	for _, s := range skips {
		skipped = append(skipped, s.Tool+"="+string(s.Reason))
	}
	slices.Sort(skipped)
	want := []string{"get_api=" + string(SkipRealHost), "get_feed=" + string(SkipRealHost), "get_nested=" + string(SkipWriteArgument)}
	if !slices.Equal(skipped, want) {
		t.Errorf("skipped %q\nwant %q", skipped, want)
	}
}

// TestPlanDecoy: a read-only decoy next to the tool that pulls the rug on
// a non-empty argument: both are called, and the trigger's argument is
// non-empty from its first call.
func TestPlanDecoy(t *testing.T) {
	t.Parallel()
	tools := []json.RawMessage{
		mkTool("a_decoy", "", `{"readOnlyHint":true}`, objSchema),
		mkTool("summarize", "Summarize a text.", ``, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}
	calls, _ := Plan(tools, 5, Values{})
	seen := map[string]int{}
	for _, c := range calls {
		seen[c.Tool]++
		if c.Tool == "summarize" && strings.Contains(string(c.Arguments), `""`) {
			t.Errorf("empty argument: %s", c.Arguments)
		}
	}
	// "Summarize" reads as neither: without annotations it is not
	// called, and the note says why.
	if seen["summarize"] != 0 || seen["a_decoy"] != 5 {
		t.Errorf("calls per tool: %v", seen)
	}
	tools[1] = mkTool("summarize", "Summarize a text.", `{"readOnlyHint":true}`, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	calls, _ = Plan(tools, 5, Values{})
	seen = map[string]int{}
	for _, c := range calls {
		seen[c.Tool]++
	}
	if seen["summarize"] != 2 || seen["a_decoy"] != 3 {
		t.Errorf("calls per tool: %v", seen)
	}
}

// TestDescribe: one line however many tools were skipped.
func TestDescribe(t *testing.T) {
	t.Parallel()
	if Describe(nil, nil) != "" {
		t.Error("nothing skipped must say nothing")
	}
	var tools []json.RawMessage
	for i := range 200 {
		tools = append(tools, mkTool(fmt.Sprintf("create_thing_%03d", i), "", ``, objSchema))
	}
	for _, n := range []string{"echo", "get_" + strings.Repeat("x", 5000), "get_a", "get_b", "get_c", "get_d"} {
		tools = append(tools, mkTool(n, "", ``, `{"type":"object","required":["x"],"additionalProperties":false}`))
	}
	tools[len(tools)-4] = mkTool("get_a", "", ``, objSchema)
	tools[len(tools)-3] = mkTool("get_b", "", ``, objSchema)
	tools[len(tools)-2] = mkTool("get_c", "", ``, objSchema)
	tools[len(tools)-1] = mkTool("get_d", "", ``, objSchema)
	_, skips := Plan(tools, 5, Values{})
	got := Describe(tools, skips)
	want := "warm-up: 4 of 206 tools eligible; not called: 200 whose name reads as a write (create_thing_000, create_thing_001, create_thing_002 and 197 more); " +
		"1 with no annotation and no read-like name (echo); 1 for which no arguments could be synthesized (get_" + strings.Repeat("x", 56) + "…)"
	if got != want {
		t.Errorf("Describe =\n%s\nwant\n%s", got, want)
	}
}

// TestPlanCorpus: on every recorded real server, every planned call
// validates against its tool's schema (by the oracle), no call goes to a
// tool whose name reads as a write, and no synthesized URL names a real
// host.
func TestPlanCorpus(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	for _, file := range files {
		tools := corpusTools(t, file)
		schemas := map[string]json.RawMessage{}
		for _, tl := range readTools(tools) {
			schemas[tl.name] = tl.schema
		}
		calls, skips := Plan(tools, 3*len(tools), Values{Dir: "/run/tmp"})
		called := map[string]bool{}
		for _, c := range calls {
			called[c.Tool] = true
			if ClassifyName(c.Tool) == Write {
				t.Errorf("%s: called %s", file, c.Tool)
			}
			if strings.Contains(string(c.Arguments), "://") && !strings.Contains(string(c.Arguments), ".invalid") {
				t.Errorf("%s %s: a URL on a real host: %s", file, c.Tool, c.Arguments)
			}
			sch, err := compileOracle(schemas[c.Tool])
			if err != nil {
				continue
			}
			if err := oracleValid(sch, c.Arguments); err != nil {
				t.Errorf("%s %s: %s does not validate: %v", file, c.Tool, c.Arguments, err)
			}
		}
		t.Logf("%s: %d tools called; %s", filepath.Base(file), len(called), Describe(tools, skips))
	}
}

// BenchmarkPlan: one launch's plan for a server with 200 tools (half of
// them reads with a realistic schema), as the quick (5 calls) and deep
// (50 calls) profiles ask. The planner runs once per launch.
func BenchmarkPlan(b *testing.B) {
	var tools []json.RawMessage
	for i := range 200 {
		name := fmt.Sprintf("get_item_%03d", i)
		if i%2 == 1 {
			name = fmt.Sprintf("update_item_%03d", i)
		}
		tools = append(tools, mkTool(name, "Gets an item.", ``, `{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["text","binary"],"default":"text"},"limit":{"type":"integer","minimum":0,"maximum":1000},"url":{"type":"string","format":"uri"},"options":{"type":"object","properties":{"follow":{"type":"boolean"}}}},"required":["path","url"]}`))
	}
	for _, n := range []int{5, 50} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				if calls, _ := Plan(tools, n, Values{Dir: "/run/tmp", Start: 7}); len(calls) != n {
					b.Fatal(len(calls))
				}
			}
		})
	}
}

// TestPlanSameEveryTime: the tools' arguments are worked out in parallel,
// and the plan is still the same from one run to the next, in the tools'
// order.
func TestPlanSameEveryTime(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	var tools []json.RawMessage
	for _, file := range files {
		tools = append(tools, corpusTools(t, file)...)
	}
	if len(tools) < 20 {
		t.Fatalf("%d corpus tools", len(tools))
	}
	calls, skips := Plan(tools, 3*len(tools), Values{Dir: "/run/tmp"})
	for i := range 5 {
		c, s := Plan(tools, 3*len(tools), Values{Dir: "/run/tmp"})
		if !reflect.DeepEqual(c, calls) || !reflect.DeepEqual(s, skips) {
			t.Fatalf("plan %d differs from the first", i+2)
		}
	}
	picked, _ := Select(tools)
	if !slices.IsSortedFunc(picked, func(a, b Call) int { return strings.Compare(a.Tool, b.Tool) }) {
		t.Error("selected tools are not in name order")
	}
}
