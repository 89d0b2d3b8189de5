package inspect

import (
	"regexp"
	"strings"
	"sync"
)

// Text for the model is not always English: an attacker who finds the
// English wordings caught writes the same order in Spanish, German or
// Chinese, and the model follows it as readily. Much of what makes an
// order one is the same in every language: a pipe into a shell, a path to
// ~/.profile, an address. What is not (that the model is addressed, the
// verb, "the user", "the system prompt") is listed here per class, for
// the languages attackers use most: Spanish, German, French, Portuguese,
// Italian, Dutch, Turkish, Polish, Russian, Chinese, Japanese and Korean,
// and Indonesian, Vietnamese, Swedish, Czech, Arabic, Hindi, Ukrainian,
// Hebrew and Thai.
//
// The lists are written as people write them and folded as the text is
// (accents dropped, look-alike Cyrillic letters read as Latin), so they
// match what judgeClause sees. "…" in a phrase stands for a few words.
// They run only on a clause that holds a function word of one of those
// languages or a byte outside ASCII: English prose never pays for them.

// langPhrases are each class's phrases.
var langPhrases = map[string][]string{
	// The model addressed: a modal, "please", the assistant named.
	"address": {
		"debe", "deben", "deberá", "debería", "por favor", "el asistente", "la ia", "al asistente", "asistente:",
		"soll", "sollte", "muss", "bitte", "der assistent", "das modell", "die ki", "den assistenten", "assistent:",
		"doit", "doivent", "devrait", "veuillez", "merci de", "l'assistant", "l'ia", "assistant ia",
		"deve", "devem", "deveria", "o assistente", "a ia", "ao assistente",
		"dovrebbe", "per favore", "l'assistente", "all'assistente",
		"moet", "moeten", "alstublieft", "de assistent",
		"musi", "prosze", "asystent", "lütfen", "asistan", "yapay zeka",
		"должен", "должна", "должно", "пожалуйста", "ассистент", "ассистенту", "для ии", "модель",
		"请", "必须", "应该", "助手", "ai助手",
		"してください", "しなさい", "必要があります", "アシスタント",
		"해야", "하세요", "주세요", "어시스턴트", "ai는",
		"agentes ia", "agenti ia", "agents ia", "ki-assistent", "ki-assistenten", "assistente ia", "asistente de ia", "ai-assistent", "al modelo", "au modèle", "al modello", "an das modell",
		"для модели", "ии-ассистент", "aiへ", "aiアシスタント", "ai 어시스턴트", "ai 에이전트", "yapay zekâ asistanı", "asistanına",
		"harus", "wajib", "mohon", "silakan", "asisten", "asisten ai", "kepada asisten", "phải", "cần phải", "vui lòng", "hãy", "trợ lý", "trợ lý ai", "måste", "bör", "vänligen", "assistenten", "ai-assistenten", "musí", "měl by", "prosím", "ai asistent", "يجب", "ينبغي", "من فضلك", "يرجى", "المساعد", "أيها المساعد", "الذكاء الاصطناعي", "चाहिए", "अवश्य", "कृपया", "सहायक", "повинен", "повинна", "будь ласка", "асистент", "асистенте", "помічник", "חייב", "בבקשה", "העוזר", "הסוכן", "ต้อง", "กรุณา", "โปรด", "ผู้ช่วย",
	},
	// A command run: the verb, or where it runs.
	"exec": {
		"ejecutar", "ejecuta", "ejecute", "ausführen", "führe", "führen sie", "ausgeführt", "exécuter", "exécutez", "exécute",
		"executar", "execute", "eseguire", "esegui", "eseguite", "uitvoeren", "voer", "çalıştır", "uruchom",
		"выполни", "выполнить", "выполните", "запусти", "запустите", "执行", "运行", "実行", "実行して", "실행",
		"jalankan", "eksekusi", "chạy", "thực thi", "kör", "exekvera", "spusť", "spusťte", "proveď", "نفذ", "شغل", "قم بتشغيل", "قم بتنفيذ", "चलाएँ", "चलाएं", "निष्पादित", "виконай", "виконайте", "запустіть", "הרץ", "הפעל", "รัน", "เรียกใช้",
	},
	"terminal": {
		"terminal", "terminale", "terminalu", "консоль", "терминал", "终端", "命令行", "ターミナル", "端末", "터미널", "shell", "bash", "powershell",
		"dòng lệnh", "الطرفية", "سطر الأوامر", "टर्मिनल", "термінал", "טרמינל", "เทอร์มินัล",
	},
	// A file or setting changed.
	"write": {
		"añadir", "añade", "agregar", "agrega", "modificar", "modifica", "cambiar", "cambia", "escribir", "escribe",
		"hinzufügen", "füge", "ändern", "ändere", "ergänzen", "schreiben", "schreibe", "eintragen",
		"ajouter", "ajoutez", "ajoute", "modifier", "modifiez", "écrire", "écrivez",
		"adicionar", "adicione", "alterar", "altere", "escrever", "escreva", "aggiungere", "aggiungi", "modificare", "modifica", "scrivere", "scrivi",
		"toevoegen", "wijzig", "ekle", "dodaj", "добавь", "добавьте", "измени", "измените", "запиши", "запишите",
		"添加", "修改", "写入", "加入", "追加", "変更", "書き込", "추가", "수정", "작성",
		"tambahkan", "ubah", "tulis", "thêm", "sửa", "lägg till", "ändra", "přidej", "přidejte", "změň", "zapiš", "أضف", "عدّل", "اكتب", "जोड़ें", "बदलें", "लिखें", "додай", "додайте", "зміни", "הוסף", "שנה", "כתוב", "เพิ่ม", "แก้ไข",
	},
	// Secrets and what the model holds.
	"secret": {
		"variables de entorno", "variable de entorno", "umgebungsvariablen", "umgebungsvariable", "variables d'environnement", "variable d'environnement",
		"variáveis de ambiente", "variabili d'ambiente", "variabili di ambiente", "omgevingsvariabelen", "ortam değişkenleri", "zmienne środowiskowe",
		"переменные окружения", "переменных окружения", "环境变量", "環境変数", "환경 변수", "환경변수",
		"prompt del sistema", "indicaciones del sistema", "systemprompt", "system-prompt", "prompt système", "prompt do sistema", "prompt di sistema",
		"системный промпт", "системную инструкцию", "系统提示", "系统提示词", "システムプロンプト", "시스템 프롬프트",
		"historial de la conversación", "historial del chat", "chatverlauf", "gesprächsverlauf", "historique de la conversation", "historique du chat",
		"histórico da conversa", "cronologia della conversazione", "историю переписки", "историю диалога", "会话历史", "聊天记录", "对话历史", "会話履歴", "대화 기록",
		"contraseña", "contraseñas", "passwort", "passwörter", "mot de passe", "mots de passe", "senha", "senhas", "пароль", "пароли", "密码", "パスワード", "비밀번호",
		"clave api", "claves api", "api-schlüssel", "clé api", "clés api", "chave api", "chiave api", "токен", "令牌", "トークン", "토큰",
		"variabel lingkungan", "kata sandi", "kunci api", "riwayat percakapan", "prompt sistem", "biến môi trường", "mật khẩu", "khóa api", "lịch sử trò chuyện", "lời nhắc hệ thống", "miljövariabler", "lösenord", "api-nyckel", "proměnné prostředí", "heslo", "hesla", "api klíč", "systémový prompt", "متغيرات البيئة", "كلمة المرور", "كلمات المرور", "مفتاح api", "سجل المحادثة", "موجه النظام", "पर्यावरण चर", "पासवर्ड", "एपीआई कुंजी", "змінні середовища", "паролі", "системний промпт", "історію листування", "משתני סביבה", "סיסמה", "סיסמאות", "מפתח api", "ตัวแปรสภาพแวดล้อม", "รหัสผ่าน", "คีย์ api",
	},
	"read": {
		"leer", "lee", "lea", "incluir", "incluye", "incluya", "adjunta", "adjuntar", "pega", "copia", "copiar", "muestra",
		"auslesen", "lies", "lesen", "einfügen", "füge", "anhängen", "kopiere", "zeige",
		"lire", "lisez", "inclure", "incluez", "joindre", "joignez", "copier", "copiez", "coller", "collez", "contenir",
		"ler", "leia", "anexar", "anexe", "copie", "leggere", "leggi", "includere", "includi", "allegare", "allega", "copiare",
		"oku", "ekle", "odczytaj", "прочитай", "прочитайте", "включи", "включите", "скопируй", "вставь", "приложи",
		"读取", "包含", "附上", "附加", "复制", "粘贴", "読み取", "含め", "添付", "貼り付け", "읽", "포함", "첨부", "붙여",
		"baca", "sertakan", "salin", "lampirkan", "đọc", "bao gồm", "sao chép", "đính kèm", "läs", "inkludera", "kopiera", "bifoga", "přečti", "přečtěte", "zahrň", "zkopíruj", "přilož", "اقرأ", "أرفق", "انسخ", "ضمّن", "पढ़ें", "शामिल करें", "संलग्न करें", "скопіюй", "קרא", "צרף", "העתק", "כלול", "อ่าน", "แนบ", "คัดลอก",
	},
	// A send verb, before a destination.
	"send": {
		"envía", "envíe", "enviar", "envíalo", "envíalos", "envíala", "envíalas", "envíale", "mándalo", "mándalos", "reenvía", "reenvíe", "reenviar", "manda", "mande", "mandar", "enviados", "enviadas",
		"sende", "senden", "schicke", "schicken", "leite", "leiten", "weiterleiten", "übermittle", "übermitteln", "gesendet",
		"envoie", "envoyez", "envoyer", "transfère", "transférez", "transférer", "envoyés", "envoyées",
		"encaminhe", "encaminha", "encaminhar", "envie", "enviados",
		"invia", "inviare", "inoltra", "inoltrare", "inviati",
		"stuur", "verstuur", "gönder", "wyślij", "отправь", "отправьте", "отправить", "перешли", "перешлите",
		"发送", "转发", "发给", "发到", "寄给", "寄到", "転送", "送信", "送って", "보내", "전송",
		"kirim", "kirimkan", "teruskan", "gửi", "chuyển tiếp", "skicka", "vidarebefordra", "pošli", "pošlete", "odešli", "přepošli", "أرسل", "ارسل", "भेजें", "भेजो", "надішли", "надішліть", "שלח", "העבר", "ส่งต่อ",
	},
	// Kept from the user.
	"hide": {
		"no le digas al usuario", "no le digas", "no informes al usuario", "no menciones", "sin decirle al usuario", "sin informar al usuario",
		"verschweige", "sag dem nutzer nicht", "sage dem nutzer nicht", "ohne den nutzer zu informieren", "ohne den benutzer zu informieren",
		"ne dis pas à l'utilisateur", "ne pas informer l'utilisateur", "ne doit … informer l'utilisateur", "sans informer l'utilisateur", "sans prévenir l'utilisateur",
		"não conte ao usuário", "não informe o usuário", "no informe al usuario", "no informe", "non mostrare", "sin indicarlo", "sin avisar", "sans le dire", "sem avisar", "senza dirlo", "ohne es zu sagen", "sem informar o usuário", "non dire all'utente", "non informare l'utente", "senza informare l'utente",
		"vertel de gebruiker niet", "kullanıcıya söyleme", "не говори пользователю", "не сообщай пользователю", "не упоминай",
		"不要告诉用户", "不要告诉", "别告诉用户", "不要通知用户", "ユーザーに言わないで", "ユーザーに伝えないで", "知らせないで", "사용자에게 알리지", "사용자에게 말하지",
		"jangan beri tahu pengguna", "jangan memberi tahu pengguna", "tanpa memberi tahu pengguna", "jangan sebutkan", "đừng nói với người dùng", "không thông báo cho người dùng", "không cho người dùng biết", "không đề cập", "berätta inte för användaren", "utan att informera användaren", "nämn inte", "neříkej uživateli", "bez informování uživatele", "nezmiňuj", "لا تخبر المستخدم", "دون إخبار المستخدم", "دون علم المستخدم", "उपयोगकर्ता को न बताएं", "उपयोगकर्ता को मत बताओ", "उपयोगकर्ता को बताए बिना", "не кажи користувачеві", "не повідомляй користувача", "без відома користувача", "אל תספר למשתמש", "בלי לספר למשתמש", "อย่าบอกผู้ใช้", "โดยไม่แจ้งผู้ใช้",
	},
	// Instructions set aside, or outranked.
	"override": {
		"ignora las instrucciones", "ignora todas las instrucciones", "ignora las instrucciones anteriores", "no le hagas caso", "olvida las instrucciones", "olvida todas",
		"ignoriere alle", "ignoriere die", "ignorieren sie", "vergiss alle", "vergiss die",
		"ignore toutes les instructions", "ignorez les instructions", "ignorez toutes", "oublie toutes", "oubliez toutes",
		"ignore todas as instruções", "ignore as instruções", "esqueça todas", "ignora tutte le istruzioni", "ignora le istruzioni", "dimentica tutte",
		"negeer alle", "negeer de instructies", "tüm talimatları yok say", "önceki talimatları", "zignoruj",
		"забудь все предыдущие", "забудь все инструкции", "игнорируй", "игнорируйте",
		"忽略之前", "忽略所有", "忽略用户", "vorrang vor … vorgaben", "忽略以上", "无视", "無視して", "指示を無視", "指示はすべて無視", "무시하고", "무시하세요", "지시를 무시",
		"ignora los datos", "ignora la función", "ignoriere die daten", "ignoriere die funktion", "ignorez les données", "ignorez la fonction", "ignore os dados", "ignora i dati",
		"prioridad sobre … instrucciones", "prioridad sobre … usuario", "vorrang vor … anweisungen", "vorrang vor … nutzer", "vorrang vor … benutzer",
		"priorité sur … instructions", "priorité sur … utilisateur", "prioridade sobre … instruções", "prioridade sobre … usuário",
		"priorità su … istruzioni", "priorità su … utente", "приоритет над … инструкци", "приоритет над … пользовател",
		"优先于用户", "优先于…指令", "优先于…指示", "指示より優先", "指示よりも優先", "지시보다 우선",
		"abaikan instruksi", "abaikan semua instruksi", "lupakan instruksi", "bỏ qua các hướng dẫn", "bỏ qua mọi hướng dẫn", "ignorera alla", "ignorera tidigare instruktioner", "glöm alla", "ignoruj všechny", "ignoruj předchozí", "zapomeň na všechny", "تجاهل التعليمات", "تجاهل جميع التعليمات", "تجاهل كل التعليمات", "पिछले निर्देशों को अनदेखा", "सभी निर्देशों को अनदेखा", "ігноруй", "ігноруйте", "забудь усі попередні", "התעלם מכל ההוראות", "התעלם מההוראות", "เพิกเฉยต่อคำสั่ง", "ละเว้นคำสั่ง",
	},
	// What the model tells the user, dictated.
	"dictate": {
		"melde dem nutzer", "sag dem nutzer", "sage dem nutzer", "teile dem nutzer mit", "melde dem benutzer", "sag dem benutzer",
		"dile al usuario que", "informa al usuario que", "di al usuario que", "dis à l'utilisateur que", "indique à l'utilisateur que", "indiquez que", "répondez que",
		"diga ao usuário que", "informe ao usuário que", "responda que", "di all'utente che", "rispondi che",
		"скажи пользователю", "сообщи пользователю", "ответь, что", "告诉用户", "回复用户", "と伝えて", "とだけ答えて", "と答えて", "라고 답", "라고 말",
		"comunica … all'utente che", "indiquez", "melden sie dem nutzer", "melden sie dem benutzer",
		"alterar o valor", "cambiar el monto", "cambia el importe", "modifier le montant", "modificare l'importo", "修改金额", "金額を変更",
		"katakan kepada pengguna bahwa", "beri tahu pengguna bahwa", "nói với người dùng rằng", "säg till användaren att", "řekni uživateli, že", "أخبر المستخدم أن", "قل للمستخدم إن", "उपयोगकर्ता को बताएं कि", "скажи користувачеві", "אמור למשתמש ש", "บอกผู้ใช้ว่า",
	},
	// A call imposed, with its pretext.
	// Where what is read goes: a field, an answer, a query.
	"channel": {
		"campo", "parámetro", "respuesta", "consulta", "feld", "parameter", "antwort", "abfrage", "champ", "paramètre", "réponse", "requête",
		"parâmetro", "resposta", "parametro", "risposta", "veld", "antwoord", "alan", "yanıt", "pole", "odpowied",
		"поле", "параметр", "ответ", "запрос", "参数", "字段", "回复", "查询", "答案", "パラメータ", "フィールド", "回答", "クエリ", "매개변수", "필드", "응답", "쿼리",
		"kolom", "tham số", "fält", "parametr", "الحقل", "المعامل", "पैरामीटर", "फ़ील्ड", "שדה", "פרמטר", "พารามิเตอร์",
	},
	"pretext": {
		"cumplimiento", "por política", "compliance", "conformité", "conformidade", "conformità", "normativa", "vorschrift", "richtlinie",
		"политик", "合规", "コンプライアンス", "규정",
	},
	"call": {
		"llame a", "llama a", "llamar a", "aufrufen", "rufe", "appelle", "appelez", "appeler", "chame", "chamar", "chiama", "chiamare", "roep",
		"вызови", "вызовите", "调用", "呼び出", "호출",
	},
	// Acting in the user's name, or handing over full rights.
	"seize": {
		"en nombre del usuario", "en nombre del cliente", "en su nombre", "en nombre de él", "acceso total", "permisos de edición", "permiso de edición",
		"im namen des nutzers", "im namen des benutzers", "im namen des kunden", "in seinem namen", "in ihrem namen", "vollzugriff", "bearbeitungsrechten", "bearbeitungsrechte",
		"au nom de l'utilisateur", "au nom du client", "en son nom", "accès complet", "droits d'édition", "droits de modification",
		"em nome do usuário", "em nome do cliente", "em nome dele", "em nome dela", "acesso total", "permissão de edição",
		"a nome dell'utente", "per conto dell'utente", "a nome del cliente", "accesso completo", "permessi di modifica",
		"namens de gebruiker", "namens de klant", "volledige toegang", "w imieniu użytkownika", "pełny dostęp", "kullanıcı adına", "tam erişim",
		"от имени пользователя", "от имени клиента", "полный доступ", "以用户的名义", "代表用户", "完全访问", "ユーザーに代わって", "ユーザーの代わりに", "フルアクセス", "사용자를 대신하여", "사용자 대신", "전체 접근",
		"atas nama pengguna", "akses penuh", "thay mặt người dùng", "quyền truy cập đầy đủ", "för användarens räkning", "full åtkomst", "jménem uživatele", "plný přístup", "نيابة عن المستخدم", "وصول كامل", "صلاحيات كاملة", "उपयोगकर्ता की ओर से", "від імені користувача", "повний доступ", "בשם המשתמש", "גישה מלאה", "ในนามของผู้ใช้",
	},
	// Another tool ranked below this one.
	"rank": {
		"nunca utilices otras", "nunca uses otras", "no uses otras", "verwende nie andere", "benutze keine anderen", "keine anderen werkzeuge",
		"n'utilise jamais d'autres", "n'utilisez pas d'autres", "nunca use outras", "não use outras", "non usare altri", "non usare altre",
		"plus fiable que tous", "utilisez-le en priorité", "será descontinuada", "use a ferramenta", "usa sempre questo strumento", "non quello",
		"única fuente fiable", "einzige zuverlässige", "seule source fiable", "única fonte confiável", "unica fonte affidabile",
		"不要使用其他", "他のツールを使わない", "다른 도구를 사용하지",
		"statt des … werkzeug", "anstelle des … werkzeug", "en lugar de la herramienta", "au lieu de l'outil", "em vez da ferramenta", "invece dello strumento", "而不是…工具", "ツールの代わりに",
	},
}

// langWords are function words of the languages above that English
// prose does not use: a clause holding two of them, or a byte outside
// ASCII, may be in one of those languages. The phrases run only there:
// each class is one long expression, which English prose should not pay
// for.
var langWords = wordSet(langWordList)

const langWordList = "yang|dan|untuk|dengan|pengguna|harus|tidak|dari|ini|itu|akan|kepada|jangan|semua|nguoi|cua|khong|cac|nhung|duoc|phai|trong|voi|och|att|som|inte|med|anvandaren|maste|ska|eller|fran|alla|efter|uzivatel|uzivatele|musi|nebo|jako|pokud|vsechny|tento|tato|neni|los|las|del|que|por|para|una|usuario|asistente|debe|und|nicht|ist|soll|bitte|der|das|nutzer|benutzer|assistent|ihre|une|pour|avec|dans|doit|utilisateur|vous|uma|nao|deve|voce|della|che|gli|utente|dovrebbe|het|een|voor|niet|moet|gebruiker|bir|ile|jest|eine|aux|cette|pas|sur|sont|seu|sua|nel|sono|sia|merci|fichier|contenu|votre|notre|leur|sans|selon|toutes|tous|correo|usted|esta|este|cuando|antes|despues|tambien|todos|todas|sus|nuestro|sollte|muss|werden|wird|nach|oder|auch|vom|zum|zur|ihr|wenn|dann|seus|suas|quando|depois|tambem|arquivo|instrucoes|anteriores|apenas|agora|questo|questa|dopo|prima|tutti|anche|essere|deze|wordt|ook|naar|bij"

// langGate opens on a clause with one of langWords or the first word of
// a phrase of the classes whose verbs are their own evidence (a send, an
// override, hiding, a dictated report, a ranking): the words are counted
// only there.
var langGate = gated(strings.ReplaceAll(langWordList, "|", " ")+" "+strings.Join(langHeads(), " "), `.`)

// langHeads are the first words of the phrases of the classes that need no
// addressing, as folded text spells them, less the words English uses.
func langHeads() []string {
	var f folder
	english := wordSet("the|a|an|to|in|no|not|ignore|send|di|die|la|le|el|il|des|les|con|per|via|statt|senden")
	var out []string
	for _, class := range []string{"override", "hide", "send", "dictate", "rank"} {
		for _, p := range langPhrases[class] {
			w := string(f.fold(strings.Fields(p)[0], false))
			if w == "" || w[0] >= 0x80 || english[w] {
				continue
			}
			out = append(out, w)
		}
	}
	return out
}

// langHead is langHeads as a set.
var langHead = sync.OnceValue(func() map[string]bool {
	return wordSet(strings.Join(langHeads(), "|"))
})

// langClause reports whether clause c (gates g) may be in one of the
// languages above.
func langClause(c []byte, g *mask) bool {
	if holdsNonASCII(c) {
		return true
	}
	if !g.has(&langGate) {
		return false
	}
	n := 0
	for i := 0; i < len(c); {
		a, z := nextWord(c, i)
		if a == len(c) {
			break
		}
		if langHead()[string(c[a:z])] {
			return true
		}
		if langWords[string(c[a:z])] {
			if n++; n == 2 {
				return true
			}
		}
		i = z
	}
	return false
}

// langRegexp is each class's phrases as one expression over folded text.
var langRegexp = sync.OnceValue(func() map[string]*regexp.Regexp {
	var f folder
	out := map[string]*regexp.Regexp{}
	for class, phrases := range langPhrases {
		alts := make([]string, 0, len(phrases))
		for _, p := range phrases {
			parts := strings.Split(p, "…")
			for i, part := range parts {
				parts[i] = regexp.QuoteMeta(strings.TrimSpace(string(f.fold(part, false))))
			}
			alt := strings.Join(parts, `[^.;!?\n]{0,40}?`)
			if c := p[0]; c < 0x80 {
				alt = `\b` + alt
			}
			if c := p[len(p)-1]; c < 0x80 && c != ' ' && c != ':' && c != '\'' {
				alt += `\b`
			}
			alts = append(alts, alt)
		}
		out[class] = regexp.MustCompile(`(?:` + strings.Join(alts, "|") + `)`)
	}
	return out
})

// langClasses are the classes of langPhrases in the order langLits holds
// them; langLits finds every phrase's first words in one pass, so that a
// class's expression runs only on a clause that holds one of them.
var langClasses = []string{"address", "exec", "terminal", "write", "secret", "read", "send", "hide", "override", "dictate", "channel", "pretext", "call", "rank", "seize"}

var langLits = sync.OnceValue(func() *litSearch {
	var f folder
	sets := make([][][]byte, len(langClasses))
	for i, class := range langClasses {
		for _, p := range langPhrases[class] {
			first, _, _ := strings.Cut(p, "…")
			sets[i] = append(sets[i], []byte(strings.TrimSpace(string(f.fold(first, false)))))
		}
	}
	return newLitSearch(sets)
})

// langHits reports, per class of langClasses, whether clause c holds one
// of its phrases' first words (a bit per class).
func langHits(c []byte) uint32 {
	var occ [16][]span
	var hits uint32
	for i, o := range langLits().scan(c, occ[:0]) {
		if len(o) > 0 {
			hits |= 1 << i
		}
	}
	return hits
}

// langHit reports whether hits holds class.
func langHit(hits uint32, class string) bool {
	for i, c := range langClasses {
		if c == class {
			return hits&(1<<i) != 0
		}
	}
	panic("inspect: no language class " + class)
}

// langDestination is a destination the text fixes, in any language.
var langDestination = lazyRegexp(`https?://[^\s'"<>]+|\b[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b|\+[0-9][0-9 -]{6,16}[0-9]\b`)

// otherLanguage is the class of a clause c (gates g) that asks something
// in another language. Setting instructions aside and hiding from the user
// are orders however they are worded; the other classes need the clause
// to address the model (a modal, "please", the assistant named) or to
// stand in a block addressed to it, as their English forms do.
func otherLanguage(c []byte, g *mask, block, answer bool) (intentClass, []int) {
	if !langClause(c, g) {
		return classNone, nil
	}
	hits := langHits(c)
	if hits == 0 && !block {
		return classNone, nil
	}
	re := langRegexp()
	find := func(class string) []int {
		if !langHit(hits, class) {
			return nil
		}
		return re[class].FindIndex(c)
	}
	if m := find("override"); m != nil {
		return classOverride, m
	}
	if m := find("hide"); m != nil {
		return classHide, m
	}
	addr := block || find("address") != nil
	if !addr {
		// In an answer a send to a destination the text fixes is an
		// order however it is put, as in English.
		if !answer {
			return classNone, nil
		}
		if m := find("send"); m != nil && langDestination().Match(c[m[1]:]) && !docsCJK().Match(c) {
			return classContact, m
		}
		return classNone, nil
	}
	if m := findAny(c, *g, shellDanger); m != nil {
		return classExec, m
	}
	if block {
		if m := find("exec"); m != nil && find("terminal") != nil && (g.has(&codeSpan) && codeSpan.matches(c) || langDestination().Match(c)) {
			return classExec, m
		}
	}
	if langHit(hits, "write") {
		if m := configTarget.re().FindIndex(c); m != nil && find("write") != nil {
			return classWriteConfig, m
		}
	}
	if m := find("send"); m != nil && langDestination().Match(c) && !docsCJK().Match(c) {
		return classContact, m
	}
	secret := find("secret")
	if secret == nil && g.anyOf(secretStore) {
		secret = findAny(c, *g, secretStore)
	}
	if secret != nil && find("read") != nil && (find("channel") != nil || find("send") != nil || langDestination().Match(c)) && !langNegated(c, len(c)) {
		return classReadSecrets, secret
	}
	if m := find("dictate"); m != nil {
		return classChangeValues, m
	}
	if m := find("seize"); m != nil && !langNegated(c, m[0]) {
		return classSeize, m
	}
	if m := find("rank"); m != nil {
		return classRedirect, m
	}
	if m := find("pretext"); m != nil && find("call") != nil && toolRef().Match(c) {
		return classImpose, m
	}
	return classNone, nil
}

// langNegation is a negation in one of the languages above: "不要在此字段
// 填写明文密码" (do not put the password in this field) asks the opposite.
var langNegation = sync.OnceValue(func() *regexp.Regexp {
	var f folder
	words := []string{"不要", "请勿", "勿", "不得", "禁止", "しないで", "ないでください", "하지 마", "не ", "لا ", "न ", "मत ", "אל ", "לא ", "อย่า", "ไม่"}
	alts := []string{`\b(?:no|nunca|nicht|nie|kein|keine|ne|jamais|não|nao|non|mai|niet|nooit|jangan|tidak|dung|khong|inte|aldrig|nikdy)\b`}
	for _, w := range words {
		alts = append(alts, regexp.QuoteMeta(string(f.fold(w, false))))
	}
	return regexp.MustCompile(strings.Join(alts, "|"))
})

// langNegated reports a negation in c before i. (A read of secrets in
// another language is judged with the whole clause: its verb may come
// last.)
func langNegated(c []byte, i int) bool {
	return langNegation().Match(c[:i])
}

// docsCJK is a clause about reporting a bug or getting support: where a
// person writes, not where data is sent.
var docsCJK = lazyRegexp(`(?:报告|反馈|漏洞|支持|联系我们|问题|文档|订阅|報告|問題|サポート|お問い合わせ|security@|support@|help@|feedback@)`)

// holdsNonASCII reports a byte outside ASCII in c.
func holdsNonASCII(c []byte) bool {
	for _, b := range c {
		if b >= 0x80 {
			return true
		}
	}
	return false
}
