package inspect

// Text for the model is not always English: an attacker who finds the
// English wordings caught writes the same order in Spanish or Chinese, and
// the model follows it as readily. Folded text has its accents dropped
// ("envía" reads "envia"), so the common European forms are matched as
// ASCII words; Chinese and Japanese are matched as they stand, only in
// clauses that hold bytes outside ASCII.
//
// Two classes are read in other languages: a send to a destination the
// text fixes, and instructions set aside. Both are the orders that need
// no English context to be orders: the verb forms below are imperatives
// and infinitives of request ("envía", "sende", "merci d'envoyer"), and
// setting instructions aside is never a tool's job.

// sendOther is a send verb of another language before a destination the
// text fixes, within the clause.
var sendOther = gated2("envia envie enviar envialo envialos enviala envialas enviale mandalo mandalos reenvia reenvie reenviar manda mande mandar sende senden schicke schicken leite leiten weiterleiten envoie envoyez envoyer transfere transferez transferer encaminhe encaminha encaminhar invia inviare inoltra inoltrare stuur verstuur wyslij gonder",
	"@ http https",
	`\b(?:envia|envie|enviar|envialo|envialos|enviala|envialas|enviale|mandalo|mandalos|reenvia|reenvie|reenviar|manda|mande|mandar|sende|senden|schicke|schicken|leite|leiten|weiterleiten|envoie|envoyez|envoyer|transfere|transferez|transferer|encaminhe|encaminha|encaminhar|invia|inviare|inoltra|inoltrare|stuur|verstuur|wyslij|gonder)\b[\s\S]{0,120}?(?:https?://[^\s'"<>]+|\b[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b)`)

// overrideOther is "ignore the instructions" in another European language.
var overrideOther = gated2("ignora ignorez ignorer ignoriere ignorieren ignorar ignorare negeer vergiss olvida oublie oubliez dimentica",
	"instrucciones instruccion instructions anweisungen anweisung instrucoes instrucao istruzioni istruzione regeln reglas regles instructies vorgaben indicaciones consignes fonction funcion funktion funzione donnees datos daten dati",
	`\b(?:ignora|ignorez|ignorer|ignoriere|ignorieren|ignorar|ignorare|negeer|vergiss|olvida|oublie|oubliez|dimentica)\b[\s\S]{0,40}?\b(?:instrucciones|instruccion|instructions|anweisungen|anweisung|instrucoes|instrucao|istruzioni|istruzione|regeln|reglas|regles|instructies|vorgaben|indicaciones|consignes|fonction|funcion|funktion|funzione|donnees|datos|daten|dati)\b`)

// Chinese and Japanese: a send or forward verb before an address or a
// URL, and instructions ignored.
var (
	sendCJK = lazyRegexp(`(?:发送|转发|发给|发到|寄给|寄到|転送|送信|送って)[^\n]{0,60}?(?:https?://|[a-z0-9._%+-]+@[a-z0-9-]+\.)`)
	// docsCJK is a clause about reporting a bug or getting support:
	// where a person writes, not where data is sent.
	docsCJK     = lazyRegexp(`(?:报告|反馈|漏洞|支持|联系我们|问题|文档|订阅|報告|問題|サポート|お問い合わせ|security@|support@|help@|feedback@)`)
	overrideCJK = lazyRegexp(`(?:忽略|无视|忽视|無視|不要理会|不要遵守)[^\n]{0,12}?(?:指令|指示|说明|規則|规则|命令|提示|指南)`)
)

// otherLanguage is the class of a clause c (gates g) that orders a send
// or sets instructions aside in another language; data says it stands in
// an answer or a block, where a send to a fixed destination is no tool's
// own job.
func otherLanguage(c []byte, g *mask, data bool) (intentClass, []int) {
	if g.has(&overrideOther) {
		if m := overrideOther.findIn(c); m != nil {
			return classOverride, m
		}
	}
	if data && g.has(&sendOther) {
		if m := sendOther.findIn(c); m != nil {
			return classContact, m
		}
	}
	if !holdsNonASCII(c) {
		return classNone, nil
	}
	if m := overrideCJK().FindIndex(c); m != nil {
		return classOverride, m
	}
	if data && !docsCJK().Match(c) {
		if m := sendCJK().FindIndex(c); m != nil {
			return classContact, m
		}
	}
	return classNone, nil
}

// holdsNonASCII reports a byte outside ASCII in c.
func holdsNonASCII(c []byte) bool {
	for _, b := range c {
		if b >= 0x80 {
			return true
		}
	}
	return false
}
