//go:build unix

package main

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// servers are the corpus's servers (catalog), the scratch directory work
// they share (a filesystem server's root, a kubeconfig) filled in.
func servers(work string) []server {
	list := make([]server, len(catalog))
	for i, s := range catalog {
		s.args = slices.Clone(s.args)
		for j, a := range s.args {
			s.args[j] = inWork(work, a)
		}
		s.env = maps.Clone(s.env)
		for k, v := range s.env {
			s.env[k] = inWork(work, v)
		}
		if b, ok := bins[s.slug]; ok {
			s.bin = b
		}
		list[i] = s
	}
	return list
}

const (
	// workDir stands for the scratch directory all servers share in
	// catalog's values: servers puts the directory in its place.
	workDir = "$WORK"
	// files is a server's directory of files, in its checkout
	// (setUpCheckout).
	files = "files"
	// kube is the kubeconfig, naming a cluster at a closed port
	// (setUpWork).
	kube = workDir + "/kubeconfig"
	// api is a backend that answers nothing.
	api = "http://" + closed
)

// inWork is v with a leading workDir replaced by work.
func inWork(work, v string) string {
	if rest, ok := strings.CutPrefix(v, workDir+"/"); ok {
		return filepath.Join(work, rest)
	}
	return v
}

// npm is a server of an npm package of bench/corpus/npm.
func npm(slug, pkg, why string, strict bool, a []string, e map[string]string) server {
	return server{slug: slug, kind: "npm", pkg: pkg, args: a, env: e, strict: strict, why: why}
}

// catalog is every server of the corpus. Each one runs with every toolset
// and feature flag its README or --help names turned on; credentials are
// fake, backends a closed loopback port or a .invalid host.
var catalog = []server{
	// npm packages (bench/corpus/npm).
	npm("playwright", "@playwright/mcp", "browser, annotations; every capability", true, args("--caps=vision,pdf,devtools,config,network,storage,testing", "--headless"), nil),
	npm("chrome-devtools", "chrome-devtools-mcp", "browser, annotations; every category and experimental tool set", true, args("--categoryExtensions", "--categoryExperimentalThirdParty", "--categoryExperimentalWebmcp", "--categoryPwa", "--experimentalDevtools", "--experimentalVision", "--experimentalMemory"), nil),
	npm("context7", "@upstash/context7-mcp", "docs, hosted API", true, nil, nil),
	npm("filesystem", "@modelcontextprotocol/server-filesystem", "filesystem, annotations, roots", false, args(files), nil),
	npm("sequential-thinking", "@modelcontextprotocol/server-sequential-thinking", "one long tool description", false, nil, nil),
	npm("memory", "@modelcontextprotocol/server-memory", "notes: a knowledge graph in a file", false, nil, env("MEMORY_FILE_PATH", workDir+"/memory.jsonl")),
	npm("everything", "@modelcontextprotocol/server-everything", "reference: prompts, resources, templates", false, nil, nil),
	npm("postgres", "@modelcontextprotocol/server-postgres", "database, resources", false, args("postgresql://bench@"+closed+"/bench"), nil),
	npm("gitlab-legacy", "@modelcontextprotocol/server-gitlab", "forge, legacy reference server", true, nil, env("GITLAB_PERSONAL_ACCESS_TOKEN", fake, "GITLAB_API_URL", api+"/api/v4")),
	npm("google-maps", "@modelcontextprotocol/server-google-maps", "maps, legacy reference server", true, nil, env("GOOGLE_MAPS_API_KEY", fake)),
	npm("slack-legacy", "@modelcontextprotocol/server-slack", "chat, legacy reference server", true, nil, env("SLACK_BOT_TOKEN", "xoxb-"+fake, "SLACK_TEAM_ID", "T0BENCH")),
	npm("brave-legacy", "@modelcontextprotocol/server-brave-search", "search, legacy reference server", true, nil, env("BRAVE_API_KEY", fake)),
	npm("puppeteer-legacy", "@modelcontextprotocol/server-puppeteer", "browser, legacy reference server", true, nil, nil),
	npm("redis-legacy", "@modelcontextprotocol/server-redis", "database, legacy reference server", false, args("redis://"+closed), nil),
	npm("gdrive-legacy", "@modelcontextprotocol/server-gdrive", "documents, legacy reference server", true, nil, nil),
	npm("pdf", "@modelcontextprotocol/server-pdf", "documents (MCP App)", true, args("--stdio", files), nil),
	npm("aws-kb-retrieval", "@modelcontextprotocol/server-aws-kb-retrieval", "cloud, legacy reference server", true, nil, env("AWS_ACCESS_KEY_ID", fake, "AWS_SECRET_ACCESS_KEY", fake, "AWS_REGION", "us-east-1")),
	npm("everart", "@modelcontextprotocol/server-everart", "images, legacy reference server", true, nil, env("EVERART_API_KEY", fake)),
	npm("supabase", "@supabase/mcp-server-supabase", "database/cloud, every feature group", true, args("--features=account,docs,database,debugging,development,functions,storage,branching"), env("SUPABASE_ACCESS_TOKEN", fake)),
	npm("notion", "@notionhq/notion-mcp-server", "notes, big schemas", true, nil, env("NOTION_TOKEN", fake)),
	npm("circleci", "@circleci/mcp-server-circleci", "CI", true, nil, env("CIRCLECI_TOKEN", fake, "CIRCLECI_BASE_URL", api)),
	npm("mongodb", "mongodb-mcp-server", "database, Atlas tools on (API client id/secret)", true, nil, env("MDB_MCP_CONNECTION_STRING", "mongodb://"+closed+"/bench", "MDB_MCP_API_CLIENT_ID", fake, "MDB_MCP_API_CLIENT_SECRET", fake, "MDB_MCP_PREVIEW_FEATURES", "mcpUI", "MDB_MCP_VOYAGE_API_KEY", fake, "MDB_MCP_TELEMETRY", "disabled", "DO_NOT_TRACK", "1")),
	npm("stripe", "@stripe/mcp", "commerce, every tool", true, args("--tools=all", "--api-key=sk_test_"+fake), nil),
	npm("tavily", "tavily-mcp", "search", true, nil, env("TAVILY_API_KEY", fake)),
	npm("gitlab", "@zereight/mcp-gitlab", "forge, every toolset (GITLAB_TOOLSETS=all)", true, nil, env("GITLAB_PERSONAL_ACCESS_TOKEN", fake, "GITLAB_API_URL", api+"/api/v4", "GITLAB_TOOLSETS", "all")),
	npm("firecrawl", "firecrawl-mcp", "scraping, API at a closed port", false, nil, env("FIRECRAWL_API_URL", api)),
	npm("desktop-commander", "@wonderwhy-er/desktop-commander", "terminal and files", false, nil, nil),
	npm("sentry", "@sentry/mcp-server", "observability; every skill, experimental tools, the embedded agent's tools (an LLM key)", true, args("--access-token="+fake, "--all-skills", "--experimental"), env("OPENAI_API_KEY", fake)),
	npm("launchdarkly", "@launchdarkly/mcp-server", "feature flags", true, args("start", "--api-key", fake), nil),
	npm("ea-playwright", "@executeautomation/playwright-mcp-server", "browser", true, nil, nil),
	npm("eslint", "@eslint/mcp", "linter", false, nil, nil),
	npm("mastra-docs", "@mastra/mcp-docs-server", "docs", true, nil, nil),
	npm("datadog-winor30", "@winor30/mcp-server-datadog", "observability", true, nil, env("DATADOG_API_KEY", fake, "DATADOG_APP_KEY", fake, "DATADOG_SITE", "datadoghq.invalid")),
	npm("chart", "@antv/mcp-server-chart", "charts, big tool list", true, nil, nil),
	npm("dynatrace", "@dynatrace-oss/dynatrace-mcp-server", "observability", true, nil, env("DT_ENVIRONMENT", "https://bench.invalid", "DT_PLATFORM_TOKEN", fake)),
	npm("google-calendar", "@cocal/google-calendar-mcp", "calendar", true, nil, env("GOOGLE_OAUTH_CREDENTIALS", filepath.Join(files, "README.md"))),
	npm("dbhub", "@bytebase/dbhub", "database", false, args("--dsn", "postgres://bench:bench@"+closed+"/bench"), nil),
	npm("hubspot", "@hubspot/mcp-server", "CRM", true, nil, env("PRIVATE_APP_ACCESS_TOKEN", fake)),
	npm("perplexity", "@perplexity-ai/mcp-server", "search", true, nil, env("PERPLEXITY_API_KEY", fake)),
	npm("shortcut", "@shortcut/mcp", "project management", true, nil, env("SHORTCUT_API_TOKEN", fake)),
	npm("apify", "@apify/actors-mcp-server", "scraping platform", true, nil, env("APIFY_TOKEN", fake)),
	npm("drawio", "@drawio/mcp", "diagrams", true, nil, nil),
	npm("mobile", "@mobilenext/mobile-mcp", "mobile devices", true, nil, nil),
	npm("currents", "@currents/mcp", "CI test results", true, nil, env("CURRENTS_API_KEY", fake)),
	npm("cloud-run", "@google-cloud/cloud-run-mcp", "cloud", true, nil, nil),
	npm("brave", "@brave/brave-search-mcp-server", "search", true, nil, env("BRAVE_API_KEY", fake)),
	npm("lark", "@larksuiteoapi/lark-mcp", "chat/docs", true, args("mcp", "-a", "cli_bench", "-s", fake), nil),
	npm("zai", "@z_ai/mcp-server", "AI vision", true, nil, env("Z_AI_API_KEY", fake)),
	npm("code-runner", "mcp-server-code-runner", "runs code", false, nil, nil),
	npm("atlassian-jira-aashari", "@aashari/mcp-server-atlassian-jira", "issues", true, nil, env("ATLASSIAN_SITE_NAME", "bench", "ATLASSIAN_USER_EMAIL", "bench@bench.invalid", "ATLASSIAN_API_TOKEN", fake)),
	npm("atlassian-bitbucket-aashari", "@aashari/mcp-server-atlassian-bitbucket", "forge", true, nil, env("ATLASSIAN_BITBUCKET_USERNAME", "bench", "ATLASSIAN_BITBUCKET_APP_PASSWORD", fake)),
	npm("browsermcp", "@browsermcp/mcp", "browser via extension", true, nil, nil),
	npm("exa", "exa-mcp-server", "search", true, nil, env("EXA_API_KEY", fake)),
	npm("azure-devops", "@azure-devops/mcp", "forge/CI, every domain", true, args("bench", "-d", "all"), nil),
	npm("azure", "@azure/mcp", "cloud, every namespace", true, args("server", "start"), nil),
	npm("nx", "nx-mcp", "monorepo tooling", false, args(files), nil),
	npm("next-devtools", "next-devtools-mcp", "framework docs", true, nil, nil),
	npm("cclsp", "cclsp", "language servers (a config naming one)", false, nil, env("CCLSP_CONFIG_PATH", "files/cclsp.json")),
	npm("figma", "figma-developer-mcp", "design", true, args("--stdio"), env("FIGMA_API_KEY", fake)),
	npm("kubernetes-ts", "mcp-server-kubernetes", "kubernetes, cluster at a closed port", false, nil, env("KUBECONFIG", kube)),
	npm("kubernetes-go", "kubernetes-mcp-server", "kubernetes (Go binary in npm), every toolset", false, args("--toolsets", "config,core,helm,kcp,kiali,kubevirt,netobserv,tekton"), env("KUBECONFIG", kube)),
	npm("elasticsearch", "@elastic/mcp-server-elasticsearch", "search database", true, nil, env("ES_URL", api, "ES_API_KEY", fake)),
	npm("heroku", "@heroku/mcp-server", "cloud", true, nil, env("HEROKU_API_KEY", fake)),
	npm("git-cyanheads", "@cyanheads/git-mcp-server", "git", false, nil, nil),
	npm("pinecone", "@pinecone-database/mcp", "vector database", true, nil, env("PINECONE_API_KEY", fake)),
	npm("postman", "@postman/postman-mcp-server", "API platform, full tool set", true, args("--full"), env("POSTMAN_API_KEY", fake)),
	npm("airtable", "airtable-mcp-server", "database", true, nil, env("AIRTABLE_API_KEY", fake)),
	npm("asana", "@roychri/mcp-server-asana", "project management", true, nil, env("ASANA_ACCESS_TOKEN", fake)),
	npm("fetcher", "fetcher-mcp", "web fetch via browser", true, nil, nil),
	npm("mui", "@mui/mcp", "component docs", true, nil, nil),
	npm("netlify", "@netlify/mcp", "cloud hosting", true, nil, env("NETLIFY_PERSONAL_ACCESS_TOKEN", fake)),
	npm("replicate", "replicate-mcp", "AI models API", true, nil, env("REPLICATE_API_TOKEN", fake)),
	npm("figma-console", "figma-console-mcp", "design; MCP Apps on", true, nil, env("FIGMA_ACCESS_TOKEN", fake, "ENABLE_MCP_APPS", "true")),
	npm("cloudflare", "@cloudflare/mcp-server-cloudflare", "cloud", true, args("run", "0123456789abcdef0123456789abcdef"), env("CLOUDFLARE_API_TOKEN", fake)),
	npm("deepwiki", "mcp-deepwiki", "docs", true, nil, nil),
	npm("reddit", "reddit-mcp-buddy", "social", true, nil, nil),
	npm("bitbucket-nexus", "@nexus2520/bitbucket-mcp-server", "forge", true, nil, env("BITBUCKET_USERNAME", "bench", "BITBUCKET_APP_PASSWORD", fake)),
	npm("filesystem-agent-infra", "@agent-infra/mcp-server-filesystem", "filesystem", false, args("--allowed-directories", files), nil),
	npm("linear", "linear-mcp", "project management", true, nil, env("LINEAR_API_KEY", fake)),
	npm("kubb", "@kubb/mcp", "code generation", false, nil, nil),
	npm("line-bot", "@line/line-bot-mcp-server", "chat", true, nil, env("CHANNEL_ACCESS_TOKEN", fake, "DESTINATION_USER_ID", "Ubench")),
	npm("codacy", "@codacy/codacy-mcp", "code quality", true, nil, env("CODACY_ACCOUNT_TOKEN", fake)),
	npm("hostinger", "hostinger-api-mcp", "hosting, big tool list", true, nil, env("API_TOKEN", fake)),
	npm("pdf-reader", "@sylphx/pdf-reader-mcp", "documents", false, nil, nil),
	npm("searxng", "mcp-searxng", "search, instance at a closed port", false, nil, env("SEARXNG_URL", api)),
	npm("chakra", "@chakra-ui/react-mcp", "component docs", true, nil, nil),
	npm("browserstack", "@browserstack/mcp-server", "testing cloud", true, nil, env("BROWSERSTACK_USERNAME", "bench", "BROWSERSTACK_ACCESS_KEY", fake)),
	npm("azure-devops-tiberriver", "@tiberriver256/mcp-server-azure-devops", "forge/CI", true, nil, env("AZURE_DEVOPS_ORG_URL", "https://dev.azure.invalid/bench", "AZURE_DEVOPS_AUTH_METHOD", "pat", "AZURE_DEVOPS_PAT", fake)),
	npm("browserbase", "@browserbasehq/mcp-server-browserbase", "browser cloud", true, nil, env("BROWSERBASE_API_KEY", fake, "BROWSERBASE_PROJECT_ID", "bench", "GEMINI_API_KEY", fake)),
	npm("atlassian", "mcp-atlassian", "issues and wiki", true, nil, env("ATLASSIAN_BASE_URL", "https://bench.invalid", "ATLASSIAN_EMAIL", "bench@bench.invalid", "ATLASSIAN_API_TOKEN", fake)),
	npm("bigquery", "@ergut/mcp-bigquery-server", "data warehouse", true, args("--project-id", "bench"), nil),
	npm("postgres-henkey", "@henkey/postgres-mcp-server", "database, big tool list", false, args("--connection-string", "postgresql://bench:bench@"+closed+"/bench"), nil),
	npm("drawio-server", "drawio-mcp-server", "diagrams", false, nil, nil),
	npm("shadcn", "@jpisnice/shadcn-ui-mcp-server", "component docs", true, nil, nil),
	npm("octocode", "octocode-mcp", "code search on a forge; local and clone tools on", true, nil, env("GITHUB_TOKEN", fake, "ENABLE_LOCAL", "true", "ENABLE_CLONE", "true")),
	npm("metabase", "@cognitionai/metabase-mcp-server", "BI", true, nil, env("METABASE_URL", api, "METABASE_API_KEY", fake)),
	npm("bitbucket", "bitbucket-mcp", "forge", true, nil, env("BITBUCKET_URL", api, "BITBUCKET_USERNAME", "bench", "BITBUCKET_PASSWORD", fake)),
	npm("neon", "@neondatabase/mcp-server-neon", "database cloud", true, args("start", fake), nil),
	npm("plane", "@makeplane/plane-mcp-server", "project management", true, nil, env("PLANE_API_KEY", fake, "PLANE_WORKSPACE_SLUG", "bench", "PLANE_API_HOST_URL", api)),
	npm("auth0", "@auth0/auth0-mcp-server", "identity", true, args("run"), nil),
	npm("graphql", "mcp-graphql", "GraphQL, mutations allowed", true, nil, env("ENDPOINT", api+"/graphql", "ALLOW_MUTATIONS", "true")),
	npm("puppeteer", "puppeteer-mcp-server", "browser (writes logs into its working directory)", false, nil, nil),
	npm("todoist", "todoist-mcp", "tasks", true, nil, env("API_KEY", fake)),
	npm("telnyx", "telnyx-mcp", "telephony API", true, nil, env("TELNYX_API_KEY", fake)),
	npm("airbnb", "@openbnb/mcp-server-airbnb", "travel", true, args("--ignore-robots-txt"), nil),
	npm("mapbox", "@mapbox/mcp-server", "maps", true, nil, env("MAPBOX_ACCESS_TOKEN", "pk."+fake)),
	npm("argocd", "argocd-mcp", "GitOps", true, args("stdio"), env("ARGOCD_BASE_URL", "https://bench.invalid", "ARGOCD_API_TOKEN", fake)),
	npm("gcp-observability", "@google-cloud/observability-mcp", "cloud observability", true, nil, nil),
	npm("brightdata", "@brightdata/mcp", "scraping, pro mode", true, nil, env("API_TOKEN", fake, "PRO_MODE", "true")),
	npm("mermaid", "mcp-mermaid", "diagrams", true, nil, nil),
	npm("amap", "@amap/amap-maps-mcp-server", "maps", true, nil, env("AMAP_MAPS_API_KEY", fake)),
	npm("svelte", "@sveltejs/mcp", "framework docs", true, nil, nil),
	npm("google-docs", "@a-bonus/google-docs-mcp", "documents", true, nil, nil),
	npm("google-drive", "@piotr-agier/google-drive-mcp", "documents", true, nil, nil),
	npm("monday", "@mondaydotcomorg/monday-api-mcp", "project management", true, args("-t", fake), nil),
	npm("xero", "@xeroapi/xero-mcp-server", "accounting", true, nil, env("XERO_CLIENT_ID", "bench", "XERO_CLIENT_SECRET", fake)),
	npm("coingecko", "@coingecko/coingecko-mcp", "crypto prices API", true, nil, env("COINGECKO_PRO_API_KEY", fake)),
	npm("rollbar", "@rollbar/mcp-server", "error tracking", true, nil, env("ROLLBAR_ACCESS_TOKEN", fake)),
	npm("sonarqube", "sonarqube-mcp-server", "code quality", true, nil, env("SONARQUBE_URL", api, "SONARQUBE_TOKEN", fake)),
	npm("vuetify", "@vuetify/mcp", "component docs", true, nil, nil),
	npm("sqlite", "mcp-sqlite", "database", false, args(filepath.Join(files, "bench.db")), nil),
	npm("discourse", "@discourse/mcp", "forum", true, args("--site", "https://bench.invalid"), nil),
	npm("duckduckgo", "duckduckgo-mcp-server", "search", true, nil, nil),
	npm("discord", "mcp-discord", "chat", true, nil, env("DISCORD_TOKEN", fake)),
	npm("gcs", "@google-cloud/storage-mcp", "cloud storage", true, nil, nil),
	npm("clarity", "@microsoft/clarity-mcp-server", "analytics", true, args("--clarity_api_token", fake), nil),
	npm("open-meteo", "open-meteo-mcp-server", "weather", true, nil, nil),
	npm("terraform", "terraform-mcp-server", "infrastructure registry", true, nil, nil),
	npm("firebase", "@gannonh/firebase-mcp", "cloud database", true, nil, env("SERVICE_ACCOUNT_KEY_PATH", filepath.Join(files, "README.md"))),
	npm("echarts", "mcp-echarts", "charts", true, nil, nil),
	npm("lara", "@translated/lara-mcp", "translation", true, nil, env("LARA_ACCESS_KEY_ID", "bench", "LARA_ACCESS_KEY_SECRET", fake)),
	npm("ripgrep", "mcp-ripgrep", "code search", false, nil, nil),
	npm("commands", "mcp-server-commands", "runs commands", false, nil, nil),
	npm("obsidian", "obsidian-mcp-server", "notes", true, nil, env("OBSIDIAN_API_KEY", fake, "OBSIDIAN_BASE_URL", api)),
	npm("karakeep", "@karakeep/mcp", "bookmarks", true, nil, env("KARAKEEP_API_ADDR", api, "KARAKEEP_API_KEY", fake)),
	npm("huggingface", "@llmindset/hf-mcp-server", "models hub", true, nil, env("HF_TOKEN", fake)),
	npm("prometheus", "prometheus-mcp", "metrics", true, args("stdio"), env("PROMETHEUS_URL", api)),
	npm("doppler", "@dopplerhq/mcp-server", "secrets manager", true, nil, env("DOPPLER_TOKEN", fake)),
	npm("iterable", "@iterable/mcp", "marketing", true, nil, env("ITERABLE_API_KEY", fake)),
	npm("transloadit", "@transloadit/mcp-server", "media processing", true, nil, env("TRANSLOADIT_KEY", "bench", "TRANSLOADIT_SECRET", fake)),
	npm("youtube-transcript", "@kimtaeyoon83/mcp-server-youtube-transcript", "video transcripts", true, nil, nil),
	npm("selenium", "@angiejones/mcp-selenium", "browser", true, nil, nil),
	npm("digitalocean", "@digitalocean/mcp", "cloud", true, nil, env("DIGITALOCEAN_API_TOKEN", fake)),
	npm("postgrest", "@supabase/mcp-server-postgrest", "database over REST", true, args("--apiUrl", api, "--schema", "public"), nil),
	npm("time", "time-mcp", "time", false, nil, nil),
	npm("mongo-server", "mcp-mongo-server", "database", false, args("mongodb://"+closed+"/bench"), nil),
	npm("pubmed", "@cyanheads/pubmed-mcp-server", "literature search", true, nil, nil),
	npm("jina", "jina-mcp-tools", "web reader/search", true, nil, env("JINA_API_KEY", fake)),
	npm("ref-tools", "ref-tools-mcp", "docs", true, nil, env("REF_API_KEY", fake)),
	npm("datadog", "datadog-mcp-server", "observability", true, args("--apiKey", fake, "--appKey", fake, "--site", "datadoghq.invalid"), nil),
	npm("teams", "@floriscornel/teams-mcp", "chat", true, nil, nil),
	npm("youtube-data", "youtube-data-mcp-server", "video API", true, nil, env("YOUTUBE_API_KEY", fake)),
	npm("firefox-devtools", "firefox-devtools-mcp", "browser", true, nil, nil),
	npm("hyperbrowser", "hyperbrowser-mcp", "browser cloud", true, nil, env("HYPERBROWSER_API_KEY", fake)),
	npm("vitest", "@djankies/vitest-mcp", "tests", false, nil, nil),
	npm("jira-cloud", "mcp-jira-cloud", "issues", true, nil, env("JIRA_BASE_URL", "https://bench.invalid", "JIRA_EMAIL", "bench@bench.invalid", "JIRA_API_TOKEN", fake)),
	npm("lighthouse", "@danielsogl/lighthouse-mcp", "web audits", true, nil, nil),
	npm("dokploy", "@ahdev/dokploy-mcp", "deployments", true, nil, env("DOKPLOY_URL", api+"/api", "DOKPLOY_API_KEY", fake)),
	npm("salesforce", "@tsmztech/mcp-server-salesforce", "CRM", true, nil, env("SALESFORCE_CONNECTION_TYPE", "User_Password", "SALESFORCE_USERNAME", "bench", "SALESFORCE_PASSWORD", fake, "SALESFORCE_TOKEN", fake, "SALESFORCE_INSTANCE_URL", "https://bench.invalid")),
	npm("shopify", "shopify-mcp", "commerce", true, args("--accessToken", fake, "--domain", "bench.invalid"), nil),
	npm("mysql-readonly", "mysql-mcp-server", "database", false, nil, env("MYSQL_HOST", "127.0.0.1", "MYSQL_PORT", "9", "MYSQL_USER", "bench", "MYSQL_PASSWORD", fake, "MYSQL_DATABASE", "bench")),
	npm("ms-365", "@softeria/ms-365-mcp-server", "office suite, org mode (every tool)", true, args("--org-mode"), nil),
	npm("smartbear", "@smartbear/mcp", "testing/observability", true, nil, env("BUGSNAG_AUTH_TOKEN", fake, "REFLECT_API_TOKEN", fake, "API_HUB_API_KEY", fake, "PACT_BROKER_BASE_URL", api, "PACT_BROKER_TOKEN", fake)),
	npm("coolify", "@masonator/coolify-mcp", "deployments", true, nil, env("COOLIFY_BASE_URL", api, "COOLIFY_ACCESS_TOKEN", fake)),
	npm("knip", "@knip/mcp", "linter", false, nil, nil),
	npm("mysql", "@benborla29/mcp-server-mysql", "database, writes allowed", false, nil, env("MYSQL_HOST", "127.0.0.1", "MYSQL_PORT", "9", "MYSQL_USER", "bench", "MYSQL_PASS", fake, "MYSQL_DB", "bench", "ALLOW_INSERT_OPERATION", "true", "ALLOW_UPDATE_OPERATION", "true", "ALLOW_DELETE_OPERATION", "true")),
	npm("instantdb", "@instantdb/mcp", "database cloud", true, args("--token", fake), nil),
	npm("openapi", "@ivotoby/openapi-mcp-server", "OpenAPI bridge", true, nil, env("API_BASE_URL", api, "OPENAPI_SPEC_PATH", api+"/openapi.json")),
	npm("shopify-dev", "@shopify/dev-mcp", "commerce docs", true, nil, nil),
	npm("backlog", "backlog-mcp-server", "project management, every toolset", true, nil, env("BACKLOG_DOMAIN", "bench.invalid", "BACKLOG_API_KEY", fake, "ENABLE_TOOLSETS", "all")),
	npm("storybook", "@storybook/mcp", "component docs", true, nil, nil),
	npm("pandacss", "@pandacss/mcp", "CSS framework (reads the directories above its own)", false, nil, nil),
	npm("apple-docs", "@kimsungwhee/apple-docs-mcp", "docs", true, nil, nil),
	npm("trello", "@delorenj/mcp-server-trello", "boards", true, nil, env("TRELLO_API_KEY", fake, "TRELLO_TOKEN", fake)),
	npm("resend", "resend-mcp", "email", true, nil, env("RESEND_API_KEY", "re_"+fake)),
	npm("database-ea", "@executeautomation/database-server", "database", false, args(filepath.Join(files, "bench.db")), nil),
	npm("browser-tools", "@agentdeskai/browser-tools-mcp", "browser telemetry", false, nil, nil),
	npm("cloudflare-playwright", "@cloudflare/playwright-mcp", "browser", true, nil, nil),
	npm("gcloud", "@google-cloud/gcloud-mcp", "cloud CLI", true, nil, nil),
	npm("forestadmin", "@forestadmin/mcp-server", "admin panel", true, nil, env("FOREST_ENV_SECRET", fake, "FOREST_AUTH_SECRET", fake, "FOREST_SERVER_URL", api)),
	npm("cloudbase", "@cloudbase/cloudbase-mcp", "cloud backend", true, nil, env("TENCENTCLOUD_SECRETID", "bench", "TENCENTCLOUD_SECRETKEY", fake, "CLOUDBASE_ENV_ID", "bench")),
	npm("notebooklm", "notebooklm-mcp", "notebooks", true, nil, nil),
	npm("excel", "@negokaz/excel-mcp-server", "spreadsheets (Go binary in npm)", false, nil, nil),
	npm("primeng", "@primeng/mcp", "component docs", true, nil, nil),
	npm("googlemaps-code-assist", "@googlemaps/code-assist-mcp", "maps docs", true, args("--stdio"), nil),
	npm("serper", "serper-search-scrape-mcp-server", "search", true, nil, env("SERPER_API_KEY", fake)),
	npm("gcp", "gcp-mcp", "cloud", true, nil, nil),
	npm("email", "@codefuturist/email-mcp", "email (IMAP/SMTP at a closed port)", false, args("stdio"), env("MCP_EMAIL_ADDRESS", "bench@bench.invalid", "MCP_EMAIL_PASSWORD", fake, "MCP_EMAIL_IMAP_HOST", "127.0.0.1", "MCP_EMAIL_IMAP_PORT", "9", "MCP_EMAIL_SMTP_HOST", "127.0.0.1", "MCP_EMAIL_SMTP_PORT", "9")),
	npm("dataforseo", "dataforseo-mcp-server", "SEO data", true, nil, env("DATAFORSEO_USERNAME", "bench", "DATAFORSEO_PASSWORD", fake)),
	npm("git-npm", "github-mcp-server", "git (a local git server named like GitHub's)", false, nil, nil),
	npm("tauri", "@hypothesi/tauri-mcp-server", "desktop apps", false, nil, nil),
	npm("zapier", "@zapier/zapier-sdk-mcp", "automation", true, nil, env("ZAPIER_API_KEY", fake)),
	npm("google-workspace", "@dguido/google-workspace-mcp", "office suite", true, nil, nil),
	npm("linear-tacticlaunch", "@tacticlaunch/mcp-linear", "project management", true, nil, env("LINEAR_API_TOKEN", fake)),
	npm("search-console", "mcp-server-gsc", "SEO", true, nil, env("GOOGLE_APPLICATION_CREDENTIALS", "files/README.md")),
	npm("glean", "@gleanwork/local-mcp-server", "enterprise search", true, nil, env("GLEAN_INSTANCE", "bench", "GLEAN_API_TOKEN", fake)),
	npm("jira-nexus", "@nexus2520/jira-mcp-server", "issues", true, nil, env("JIRA_BASE_URL", "https://bench.invalid", "JIRA_EMAIL", "bench@bench.invalid", "JIRA_API_TOKEN", fake)),
	npm("vercel", "vercel-mcp", "cloud hosting", true, args("VERCEL_API_KEY="+fake), env("VERCEL_API_KEY", fake)),
	npm("fetch-kazuph", "@kazuph/mcp-fetch", "web fetch", true, nil, nil),
	npm("grafana", "@leval/mcp-grafana", "observability", true, nil, env("GRAFANA_URL", api, "GRAFANA_SERVICE_ACCOUNT_TOKEN", fake)),
	npm("filesystem-j0hanz", "@j0hanz/filesystem-mcp", "filesystem", false, args(files), nil),
	npm("mysql-berthojoris", "@berthojoris/mcp-mysql-server", "database, every permission", false, args("mysql://bench:bench@"+closed+"/bench", "list,read,create,update,delete,execute,ddl,utility,transaction,procedure"), nil),
	npm("tailwindcss", "tailwindcss-mcp-server", "CSS framework", true, nil, nil),
	npm("react-aria", "@react-aria/mcp", "component docs", true, nil, nil),
	npm("fetch-server", "mcp-fetch-server", "web fetch", true, nil, nil),
	npm("ssh", "ssh-mcp", "remote shell (host at a closed port)", false, args("--host=127.0.0.1", "--port=9", "--user=bench"), env("SSH_MCP_PASSWORD", fake)),
	npm("local-rag", "mcp-local-rag", "document search", false, nil, env("BASE_DIR", "files")),
	npm("weather", "@dangahagan/weather-mcp", "weather", true, nil, nil),
	npm("datadog-mcp", "datadog-mcp", "observability", true, nil, env("DD_API_KEY", fake, "DD_APP_KEY", fake, "DD_SITE", "datadoghq.invalid")),
	npm("mssql", "@connorbritain/mssql-mcp-server", "database", false, nil, env("SERVER_NAME", "127.0.0.1", "DATABASE_NAME", "bench", "SQL_USER", "bench", "SQL_PASSWORD", fake, "READONLY", "false")),
	npm("gsheets", "mcp-gsheets", "spreadsheets", true, nil, env("GOOGLE_PROJECT_ID", "bench", "GOOGLE_APPLICATION_CREDENTIALS", "files/README.md")),
	npm("anilist", "anilist-mcp", "media database API", true, nil, nil),
	npm("n8n", "@leonardsellem/n8n-mcp-server", "automation", true, nil, env("N8N_API_URL", api+"/api/v1", "N8N_API_KEY", fake)),
	npm("1password", "@takescake/1password-mcp", "secrets manager", true, nil, env("OP_SERVICE_ACCOUNT_TOKEN", fake)),
	npm("workos-docs", "@workos/mcp-docs-server", "docs", true, nil, nil),
	npm("vercel-mistertk", "@mistertk/vercel-mcp", "cloud hosting", true, nil, env("VERCEL_API_KEY", fake)),
	npm("chatwork", "@chatwork/mcp-server", "chat", true, nil, env("CHATWORK_API_TOKEN", fake)),
	npm("remotion", "@remotion/mcp", "video docs", true, nil, nil),
	npm("magic", "@21st-dev/magic", "UI generation", true, nil, env("API_KEY", fake)),
	npm("testsprite", "@testsprite/testsprite-mcp", "testing", true, nil, env("API_KEY", fake)),
	npm("map", "@modelcontextprotocol/server-map", "maps (MCP App)", true, args("--stdio"), nil),
	npm("system-monitor", "@modelcontextprotocol/server-system-monitor", "system stats (MCP App)", false, args("--stdio"), nil),
	// Go modules (bench/corpus/gomod).
	{slug: "github-go", kind: "go", pkg: "github.com/github/github-mcp-server", bin: "github-mcp-server", version: "v0.30.0", args: args("stdio", "--toolsets=all"), env: env("GITHUB_PERSONAL_ACCESS_TOKEN", fake), strict: true, why: "forge, Go (go-sdk), every toolset"},
	{slug: "mcp-go-filesystem", kind: "go", pkg: "github.com/mark3labs/mcp-filesystem-server", bin: "mcp-filesystem-server", version: "v0.11.1", args: args(files), why: "filesystem, Go (mark3labs/mcp-go)"},
}

// bins are the bins to run, where a package has more than one.
var bins = map[string]string{"chrome-devtools": "chrome-devtools-mcp", "gitlab": "mcp-gitlab", "desktop-commander": "desktop-commander", "huggingface": "hf-mcp-server", "coolify": "coolify-mcp", "jira-cloud": "mcp-jira-cloud", "reddit": "reddit-mcp-buddy", "hostinger": "hostinger-api-mcp", "browser-tools": "browser-tools-mcp", "git-npm": "github-mcp-server-mcp", "fetch-server": "mcp-fetch-server"}
