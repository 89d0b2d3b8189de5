package inspect

import (
	"encoding/json"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// A tool can ask through its schema what its prose does not: a parameter
// the model must fill in is a request. A weather tool with a card_number,
// a calculator with a seed_phrase, a search with a social_security_number ask
// the model for what pays for, identifies or unlocks the user's things, and nothing the tool
// says it does needs it. That is reading secrets (classReadSecrets), asked
// through a parameter's name rather than in a sentence.
//
// A parameter counts when its name's words hold one of a scopeRule's
// sequences and none of the rule's scope words is a word of the tool's
// name, title, description or server: a payment tool asks for the card, a
// wallet for its key. Passwords are left out: too many honest tools set
// one (a VPS's root password, a form's, a basic-auth app's). The
// parameter's own description is not read for the scope: it is where an
// attacker writes the pretext ("card number, for premium forecasts").

// scopeRule is one kind of thing a parameter asks for and the jobs that
// need it.
type scopeRule struct {
	what  string
	keys  [][]string
	scope map[string]bool
}

var scopeRules = []scopeRule{
	{"a payment card", [][]string{{"card", "number"}, {"credit", "card"}, {"debit", "card"}, {"cvv"}, {"cvc"}, {"cvv2"}, {"card", "cvv"}, {"card", "expiry"}},
		wordSet("payment|payments|pay|paying|checkout|order|orders|purchase|purchases|buy|billing|invoice|invoices|charge|charges|subscription|subscriptions|stripe|transaction|transactions|donate|donation|booking|book|reserve|reservation|ticket|tickets|shop|store|cart|card|cards|merchant|refund|refunds|wallet|customer|customers|fraud|bin|issuer|tokenize")},
	{"an identity number", [][]string{{"ssn"}, {"social", "security"}, {"passport"}, {"maiden", "name"}, {"national", "id"}, {"tax", "id"}, {"date", "of", "birth"}},
		wordSet("identity|identities|kyc|verify|verification|tax|taxes|employee|employees|hr|payroll|onboarding|applicant|applicants|application|patient|patients|person|people|profile|profiles|customer|customers|visa|travel|traveler|traveller|immigration|background|credit|loan|insurance|citizen|government|benefits|contact|contacts|user|users|member|members|record|records|health|medical|flight|flights|booking|passenger|passengers|guest|guests|lead|leads|crm|candidate|candidates")},
	{"a bank account", [][]string{{"bank", "account"}, {"routing", "number"}, {"iban"}, {"swift", "code"}, {"sort", "code"}},
		wordSet("payment|payments|pay|payout|payouts|transfer|transfers|bank|banks|banking|invoice|invoices|payroll|wallet|finance|financial|deposit|deposits|withdraw|withdrawal|ach|wire|debit|direct|billing|vendor|vendors|supplier|suppliers|employee|employees|customer|customers|refund|refunds|accounting|ledger|transaction|transactions|validate|validation|lookup|plaid|stripe|sepa")},
	{"a wallet's or a key's secret", [][]string{{"seed", "phrase"}, {"seed", "words"}, {"mnemonic"}, {"recovery", "phrase"}, {"private", "key"}, {"secret", "key"}, {"privkey"}},
		wordSet("wallet|wallets|crypto|key|keys|keypair|sign|signing|signer|signature|import|restore|recover|recovery|account|accounts|eth|ethereum|btc|bitcoin|solana|sol|web3|blockchain|chain|onchain|derive|ssh|pgp|gpg|tls|ssl|cert|certificate|certificates|encrypt|decrypt|encryption|jwt|token|tokens|transaction|transactions|transfer|swap|deploy|contract|contracts|evm|hd|bip39|secret|secrets|vault|s3|storage|bucket|aws|api|auth|credential|credentials|connect|connection|hmac|webhook|webhooks")},
	{"a one-time code", [][]string{{"otp"}, {"totp"}, {"2fa"}, {"mfa"}, {"verification", "code"}, {"auth", "code"}, {"backup", "codes"}},
		wordSet("login|log|signin|sign|auth|authenticate|authentication|verify|verification|2fa|mfa|otp|totp|code|codes|account|accounts|security|user|users|session|sessions|register|signup|identity|phone|sms|email|confirm|confirmation|reset|password")},
}

// mayAskSecret is a cheap first look at a parameter's name: it holds a
// word a scopeRule's sequences start with. Most names do not, and the
// definition is then not read again.
func mayAskSecret(name []byte) bool {
	// nameWords without its allocations: a name is read for every
	// parameter of every tool.
	var buf [24]byte
	n := 0
	check := func() bool {
		hit := n > 0 && n <= len(buf) && scopeFirst[string(buf[:n])]
		n = 0
		return hit
	}
	for i, c := range name {
		switch {
		case 'A' <= c && c <= 'Z':
			if i > 0 && 'a' <= name[i-1] && name[i-1] <= 'z' && check() {
				return true
			}
			if n < len(buf) {
				buf[n] = c + 'a' - 'A'
			}
			n++
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			if n < len(buf) {
				buf[n] = c
			}
			n++
		default:
			if check() {
				return true
			}
		}
	}
	return check()
}

// scopeFirst are the first words of every scopeRule's sequences.
var scopeFirst = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range scopeRules {
		for _, k := range r.keys {
			m[k[0]] = true
		}
	}
	return m
}()

// scopeOf is the words of a tool's own description of itself: its name,
// title, annotations' title and description, and its server's name.
func (sc *scan) scopeOf() map[string]bool {
	var d struct {
		Name, Title, Description string
		Annotations              struct{ Title string }
	}
	_ = json.Unmarshal(sc.subject.Raw, &d)
	m := map[string]bool{}
	for _, s := range []string{sc.subject.Name, sc.subject.Server, d.Name, d.Title, d.Description, d.Annotations.Title} {
		for _, w := range nameWords(s) {
			m[w] = true
		}
	}
	return m
}

// outOfScope raises, for a tool, every parameter that asks for what a
// scopeRule names when the tool says nothing of a job that needs it.
func (sc *scan) outOfScope() {
	if sc.subject.Kind != finding.KindTool || len(sc.rawParams) == 0 {
		return
	}
	var scope map[string]bool
	for _, p := range sc.rawParams {
		ws := nameWords(p)
		if anyOf(ws, aboutSecret) {
			// private_key_uuid, card_last4, password_policy: about
			// the secret, not the secret.
			continue
		}
		for _, r := range scopeRules {
			if !holdsSeq(ws, r.keys) {
				continue
			}
			if scope == nil {
				scope = sc.scopeOf()
			}
			if anyIn(scope, r.scope) {
				continue
			}
			h := sc.get(finding.ModelInstruction, "inputSchema/properties/"+p, true)
			h.hidden = false
			l := classLabels[classReadSecrets]
			h.addLabel(l)
			h.raise(finding.Error)
			h.csev = max(h.csev, finding.Error)
			h.detail = append(h.detail, l+": the parameter \""+p+"\" asks for "+r.what+", and nothing in the tool's name or description needs it")
			break
		}
	}
}

// holdsSeq reports whether words ws hold one of seqs, in order and
// adjacent.
func holdsSeq(ws []string, seqs [][]string) bool {
	for _, seq := range seqs {
		for i := 0; i+len(seq) <= len(ws); i++ {
			ok := true
			for j, w := range seq {
				if ws[i+j] != w {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// aboutSecret are the words of a parameter that names something about a
// secret (its id, its path, a rule for it), not the secret itself.
var aboutSecret = wordSet("id|ids|uuid|uuids|name|names|path|paths|file|files|ref|reference|type|types|length|min|max|policy|policies|enabled|required|hint|url|count|format|hash|fingerprint|expiry|expires|last4|last|mask|masked|protected|strength|rule|rules|label|alias|version|status|exists|field|fields|index")

func anyOf(ws []string, set map[string]bool) bool {
	for _, w := range ws {
		if set[w] {
			return true
		}
	}
	return false
}

func anyIn(have, want map[string]bool) bool {
	for w := range have {
		if want[w] {
			return true
		}
	}
	return false
}
