/**
 * Content-safety screening for ad lines (pure domain logic, no I/O).
 *
 * Why it is built this way:
 * - Ad lines are tiny and adversarial, so the text is folded hard first (NFKC, invisible characters,
 *   diacritics, Cyrillic/Greek look-alikes, leetspeak). Folding that hard manufactures false positives
 *   ("Scunthorpe", "Essex", "therapist", "Bet you can't..."), so *where* a term is matched matters more
 *   than the list itself. Every term is matched in exactly one of two forms:
 *   - squashed (all separators removed): beats "c.a.s.i.n.o" / "ca sino" style splitting, but also matches
 *     across word boundaries and inside innocent words, so only long, distinctive terms live there.
 *   - tokens (words joined by single spaces): short or ambiguous words only match as whole words, and
 *     multi-word phrases match as whole-word sequences, so context ("online betting", "double your
 *     bitcoin") decides rather than a bare word ("bet", "crypto", "password").
 * - Runs of single-letter tokens are re-joined ("s e x" -> "sex") so spacing can't sneak short words past
 *   the token form.
 * - Repeated letters are handled in the matcher (a run of N letters in a term matches N or more), not by
 *   collapsing the text, so "caaasino" still hits but "Niger" can never turn into a slur. (Runs are only
 *   capped at 3, which no term exceeds, to keep regex work linear on hostile input.)
 * - Ambiguous leet characters (1 | !) fold to "i"; terms accept "i" wherever they have "l".
 * - Trailing "!" is punctuation, not leet; digit-only tokens ("2024", "100") are left alone.
 * - Deny beats review. Review means "may run, but a human looks first".
 * - Hate terms are stored rot13-encoded so the source doesn't spell slurs out.
 *
 * Pattern syntax for `words`: lowercase letters (repeat-tolerant), spaces between words, regex
 * groups/alternation/`?`, `*` = any letters (prefix match), `#` = a number.
 */

export type SafetyCategory = 'scam' | 'adult' | 'hate' | 'gambling' | 'phishing'

export type Screening =
  | { verdict: 'allow' }
  | { verdict: 'deny'; category: SafetyCategory }
  | { verdict: 'review'; reason: string }

interface TermSet {
  /** Long, distinctive letter strings matched anywhere in the squashed text. */
  readonly squashed?: readonly string[]
  /** Whole-word patterns (single words or phrases) matched on the token form. */
  readonly words?: readonly string[]
}

// ---------------------------------------------------------------------------------------------
// Term lists (data)
// ---------------------------------------------------------------------------------------------

const rot13 = (s: string): string =>
  s.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97))

/** Order matters only when a line hits several categories: the first listed wins. */
const DENY: ReadonlyArray<readonly [SafetyCategory, TermSet]> = [
  ['hate', {
    squashed: ['avttre', 'snttbg', 'gbjryurnq', 'urvyuvgyre', 'fvrturvy'].map(rot13),
    words: [
      'avtt(n|nf|nm|nu|hu)', 'avtt(re|ref)', 'xvxrf?', 'xlxrf?', 'fcvpf?', 'puvaxf?(?! va)', 'tbbxf?',
      'sntf?', 'snttbgf?', 'qlxrf?', 'genaa(l|vrf)', 'ergneqf?', 'ergneqrq', 'jrgonpxf?', 'ornaref?',
      'enturnqf?', 'gbjryurnqf?', 'pbbaf?', 'wvtnobbf?', 'cbepu zbaxrlf?', 'tbyyvjbtf?', 'mvccreurnqf?',
      'cnxvf?', 'urrof?', 'furznyrf?', 'pnzry wbpxrlf?', 'urvy uvgyre', 'fvrt urvy', 'juvgr cbjre',
      'juvgr trabpvqr', 'tnf gur wrjf',
      '(xvyy|tnf|unat) (nyy )?(gur )?(wrjf|zhfyvzf|oynpxf|tnlf|vzzvtenagf)',
      'qrngu gb (gur )?(wrjf|zhfyvzf|oynpxf|tnlf)',
    ].map(rot13),
  }],
  ['adult', {
    squashed: [
      'pornhub', 'pornstar', 'pornograph', 'youporn', 'redtube', 'xvideos', 'xhamster', 'xnxx', 'onlyfans',
      'chaturbate', 'camgirl', 'blowjob', 'handjob', 'gangbang', 'bukkake', 'cumshot', 'deepthroat',
      'creampie', 'hentai', 'masturbat', 'dildo', 'freeporn',
    ],
    words: [
      'porn*', 'pron', 'sex', 'sexting', 'sex (cams?|chat|tapes?|toys?|videos?|shop|dolls?)', 'cam sex', 'xxx',
      'sexy (chat|girls?|cams?|singles|pics|photos|videos?|women|babes)', 'nsfw',
      'nudes?', 'nudity', 'topless', 'milfs?', 'boobs?', 'tits', 'titties', 'pussy', 'pussies', 'cocks?',
      'dick pics?', 'cunts?', 'fuck*', 'motherfuck*', 'orgy', 'orgies', 'orgasm*', 'dildos?', 'vibrators?',
      'horny', 'sluts?', 'slutty', 'whores?', 'escorts', 'escort (services?|girls?|agenc(y|ies))', 'strip clubs?', 'erotic*', 'fetish*', 'bdsm',
      'cam girls?', 'webcam (girls?|models?)', 'hot singles',
      'adult (content|videos?|chat|sites?|entertainment|cams?|movies?)',
    ],
  }],
  ['phishing', {
    squashed: ['verifyyouraccount', 'verifyyourwallet', 'confirmyourpassword', 'accountsuspended'],
    words: [
      '(?<!(never|not|dont|don t) )(verify|confirm|validate|enter|re enter|reenter|submit|provide|import|sync|restore|rectify|unlock|update) (your )?(wallet )?(seed|recovery|secret|mnemonic|backup) (phrase|words)',
      '(verify|validate|confirm) your (wallet|account|password|login|credentials|billing|bank|card|identity|pin)',
      '(re enter|reenter|send us|send|submit) your (password|passcode|login|credentials|pin|otp|ssn|card number|cvv|bank details)',
      '(login|log in|sign in|signin) (now )?to (verify|confirm|unlock|restore|reactivate|secure|validate|avoid)',
      '(account|wallet|card|apple id|paypal) (is |has been |was |will be )?(temporarily |permanently )?(suspended|locked|disabled|deactivated|compromised|frozen|on hold|restricted)',
      'click here to (verify|confirm|unlock|restore|reactivate|login|log in|sign in|claim|secure|validate)',
      'unusual (sign in|signin|login) (activity|attempt)', 'suspicious (activity|login|sign in) (detected|on your account)',
      'unauthori(z|s)ed (login|sign in|transaction|payment) (detected|attempt)', 'your password (has )?expired',
      'update (your )?(billing|payment|card) (details|information|info) (to|or|now|immediately)',
    ],
  }],
  ['scam', {
    squashed: [
      'getrichquick', 'doubleyourbitcoin', 'doubleyourcrypto', 'doubleyourmoney', 'bitcoindoubler',
      'cryptodoubler', 'nigerianprince', 'cryptogiveaway', 'bitcoingiveaway', 'youvewon', 'youhavewon',
      'claimyourprize', 'fundsrecovery', 'cryptorecovery', 'walletdrainer', 'pumpanddump', 'makemoneyfast',
      'ponzischeme', 'pyramidscheme', 'freebitcoin', 'cryptoairdrop', 'tokenairdrop', 'freeiphone',
    ],
    words: [
      'ponzi*',
      'double your (bitcoin|btc|crypto|eth|ethereum|money|coins?|investment|deposit)s?',
      'claim (your )?(free )?(crypto|bitcoin|btc|eth|ethereum|airdrop|prize|nfts?)',
      '(crypto|token|coin|nft|eth|bitcoin|btc) (airdrop|giveaway)s?',
      'recover (your )?(lost |stolen )?(crypto|bitcoin|btc|funds|scammed funds)',
      'congratulations (you|u) (won|win|are the winner)',
    ],
  }],
  ['gambling', {
    squashed: [
      'casino', 'roulette', 'blackjack', 'baccarat', 'sportsbook', 'sportsbetting', 'onlinebetting',
      'bettingodds', 'bettingtips', 'slotmachine', 'freespins', 'pokerstars', 'draftkings', 'fanduel',
      'betfair', 'betway', 'bookmaker', 'texasholdem', 'onlinepoker', 'onlinegambling', 'pachinko',
    ],
    words: [
      '(online|sports|live|crypto|football|soccer|horse|esports|spread) betting',
      'betting (odds|tips|sites?|apps?|bonus|bonuses|platforms?|exchanges?|games?|lines)',
      'bet (now|online)', 'place (your |a )?bets?', 'wagering', 'bookies?', 'pokies', 'parlays?', 'lotto',
      '(online|sports|casino|crypto|real money) gambling', 'gambling (sites?|apps?|online|bonus|platforms?|games?)',
      'poker (rooms?|sites?|bonus|chips|online|tournaments?)', 'real money (poker|games|slots|casino)',
      'slot machines?', '(online|free) slots', 'slots (bonus|online|jackpot)', 'scratch cards?',
      '(lottery|lotto) (tickets?|numbers|results|jackpot|online)',
    ],
  }],
]

const REVIEW: ReadonlyArray<readonly [string, TermSet]> = [
  ['crypto_offer', {
    words: [
      'cryptos', 'cryptocurrenc*', 'bitcoin*', 'btc', 'ethereum', 'dogecoin', 'solana', 'altcoins?',
      'memecoins?', 'shitcoins?', 'stablecoins?', 'nfts?', 'defi', 'airdrops?', 'staking (rewards|pools?|yield|apy)', 'presales?',
      'pre sale', 'icos?', 'yield farming', 'liquidity mining',
      'crypto (trading|exchanges?|wallets?|signals|investments?|portfolio|coins?|tokens?|profits?|gains|bonus|rewards?|staking|loans?|payments?|prices?|market)',
      '(buy|sell|trade|earn|invest in|mine|free) crypto',
      'token (sale|presale|launch|offering|generation event)',
    ],
  }],
  ['financial_offer', {
    words: [
      'guaranteed (# (percent )?)?(daily |weekly |monthly |annual )?(returns?|profits?|income|gains|yields?|roi|payouts?|earnings|interest)',
      'risk free (returns?|investments?|profits?|income|trading)', 'passive income', 'get rich',
      'financial freedom', 'forex', 'fx trading', 'binary options', 'day trading',
      'trading (signals|bots?|courses?|strategy)', 'stock (tips|picks|alerts|signals)',
      'investment (opportunit(y|ies)|returns?|advice)', 'high yield', 'make money (online|from home)',
      '# percent (daily|weekly|monthly) (returns?|profits?|interest)', 'double your (income|savings|returns?)',
    ],
  }],
  ['lending', {
    words: [
      'loans?', 'payday', 'lenders?', 'lending', 'mortgages?', 'refinanc*', 'credit repair', 'bad credit',
      'no credit check', 'debt (relief|consolidation|settlement)', 'cash advances?',
    ],
  }],
  ['dating', {
    words: [
      'dating', 'hookups?', 'singles (near|in) (you|your area)', 'meet (local |hot |lonely )?singles',
      'find (your )?(soulmate|true love|perfect partner)', 'sugar (daddy|daddies|baby|babies|mommy)',
      'mail order brides?', 'lonely (women|men|wives|housewives)',
    ],
  }],
  ['health_claim', {
    words: [
      'miracle (cure|pills?|diet|remedy|supplements?|treatment|drug|weight loss)',
      '(dietary|diet|health|weight loss|herbal|testosterone|muscle) supplements?', 'nootropics?', 'weight loss',
      'lose weight', 'fat (burner|burning|loss)', 'diet pills?', 'keto (pills|gummies)',
      'cures? (for )?(cancer|diabetes|covid|anxiety|depression|baldness|arthritis)', 'anti aging', 'antiaging',
      'viagra', 'cialis', 'erectile', 'male enhancement', 'testosterone', 'hair loss', 'ozempic', 'semaglutide',
      'detox (tea|cleanse|diet)', 'immune boost*', 'boost your immun*', 'no prescription', 'online pharmacy',
    ],
  }],
  ['controlled_substance', {
    words: [
      'vap(e|es|er|ers|ing)', 'e cig*', 'ecig*', 'e liquids?', 'eliquids?', 'juul', 'nicotine', 'tobacco',
      'cigarettes?', 'cannabis', 'marijuana', 'cbd', 'thc', 'dispensar(y|ies)', 'edibles',
      'weed (delivery|shop|strains?|gummies|dispensary)', 'kratom', 'psilocybin', 'magic mushrooms', 'shrooms',
      '420 friendly', 'delta 8',
    ],
  }],
  ['political', {
    words: [
      'paid for by', 'get out the vote', 'register to vote', 'vote (yes|no) on',
      '(presidential|general|midterm|primary|senate|congressional) (elections?|race|campaign|candidates?)',
      'election (day|campaign|fraud|integrity)', 'democrats?', 'democratic party', 'republicans?', 'gop', 'maga',
      'trump', 'biden', 'kamala', 'obama', 'desantis', 'putin', 'brexit', 'tory', 'tories', 'labour party',
      'senators?', 'congress(man|woman|men|women)', 'ballots?', 'super pacs?', 'abortion', 'gun (control|rights)',
      'second amendment', 'political (ads?|campaigns?|party|parties)',
    ],
  }],
]

// ---------------------------------------------------------------------------------------------
// Normalizer
// ---------------------------------------------------------------------------------------------

/** Format characters (zero-width space/joiners, bidi controls, BOM, soft hyphen, tags) and blank fillers. */
const INVISIBLE = /[\p{Cf}\u115F\u1160\u2800\u3164\uFFA0]/gu

/** Look-alikes that survive NFKC. Lowercase keys; uppercase only where it looks different from its lowercase. */
const HOMOGLYPHS: Readonly<Record<string, string>> = Object.fromEntries(
  [
    // Cyrillic
    'аa бb вb гr еe ёe иn кk мm нh оo пn рp сc тt уy хx ьb ѕs іi їi јj ԁd һh ԛq ԝw ӏl үy',
    // Greek (+ uppercase forms whose lowercase looks different)
    'αa βb γy εe ζz ηn ιi κk μu νv οo ρp ςs τt υu χx ωw ϲc ϳj Ηh Νn Μm Υy Ζz Ιi',
    // Latin extras without a decomposition, Armenian
    'ıi łl øo đd ħh ɑa ɡg ßss æae œoe օo սu',
  ]
    .join(' ')
    .split(' ')
    .map((pair) => [pair.charAt(0), pair.slice(1)]),
)

const LEET: Readonly<Record<string, string>> = {
  '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '6': 'g', '7': 't', '8': 'b', '9': 'g',
  '@': 'a', $: 's', '!': 'i', '|': 'i', '€': 'e',
}

function foldCharacters(text: string): string {
  const stripped = text.normalize('NFKC').replace(INVISIBLE, '').normalize('NFD').replace(/\p{M}/gu, '')
  let out = ''
  for (const ch of stripped) out += HOMOGLYPHS[ch] ?? HOMOGLYPHS[ch.toLowerCase()] ?? ch.toLowerCase()
  return out
}

/** Leet only applies inside chunks that contain a letter, so prices and versions stay numbers. */
function deLeet(chunk: string): string {
  if (!/\p{L}/u.test(chunk)) return chunk
  return chunk.replace(/[!|]+$/, '').replace(/[0-9@$!|€]/g, (c) => LEET[c] ?? c)
}

/** "f r e e c a s i n o" -> "freecasino": spaced-out letters become one word again ("p.0.r.n" too). */
function joinSingleLetters(tokens: readonly string[]): string[] {
  const out: string[] = []
  let run = ''
  const flush = (): void => {
    if (run) out.push(deLeet(run))
    run = ''
  }
  for (const token of tokens) {
    if ([...token].length === 1) run += token
    else {
      flush()
      out.push(token)
    }
  }
  flush()
  return out
}

/** Runs longer than any term needs are capped at 3, which keeps matching linear on hostile input. */
const capRuns = (s: string): string => s.replace(/(\p{L})\1{3,}/gu, '$1$1$1')

/** Token form: folded, de-leeted words separated by single spaces (emoji and punctuation dropped). */
export function normalizeForScreening(text: string): string {
  const chunks = foldCharacters(text).match(/[\p{L}\p{N}@$!|€]+/gu) ?? []
  const tokens = chunks.flatMap((chunk) => deLeet(chunk).split(/[^\p{L}\p{N}]+/u)).filter(Boolean)
  return capRuns(joinSingleLetters(tokens).join(' '))
}

// ---------------------------------------------------------------------------------------------
// Matcher
// ---------------------------------------------------------------------------------------------

interface Forms {
  readonly tokens: string
  readonly squashed: string
}

/** A run of N identical letters matches N or more; "l" also accepts "i" (1, |, I all fold to "i"). */
function letterRun(run: string): string {
  const letter = run[0] === 'l' ? '[li]' : run.charAt(0)
  return `(?:${letter}${run.length > 1 ? `{${run.length},}` : '+'})`
}

function patternToRegex(pattern: string): string {
  return pattern.replace(/([a-z])\1*|\*|#/g, (m) => (m === '*' ? '[a-z]*' : m === '#' ? '[0-9]+' : letterRun(m)))
}

function compileTermSet(set: TermSet): (forms: Forms) => boolean {
  const squashed = set.squashed?.length ? new RegExp(set.squashed.map(patternToRegex).join('|')) : undefined
  const words = set.words?.length
    ? new RegExp(`(?:^| )(?:${set.words.map((w) => `(?:${patternToRegex(w)})`).join('|')})(?= |$)`)
    : undefined
  return (forms) => (squashed?.test(forms.squashed) ?? false) || (words?.test(forms.tokens) ?? false)
}

const DENY_RULES = DENY.map(([category, set]) => [category, compileTermSet(set)] as const)
const REVIEW_RULES = REVIEW.map(([reason, set]) => [reason, compileTermSet(set)] as const)

export function screenAdLine(text: string): Screening {
  const tokens = normalizeForScreening(text)
  const forms: Forms = { tokens, squashed: capRuns(tokens.replace(/[^a-z]/g, '')) }
  for (const [category, matches] of DENY_RULES) if (matches(forms)) return { verdict: 'deny', category }
  for (const [reason, matches] of REVIEW_RULES) if (matches(forms)) return { verdict: 'review', reason }
  return { verdict: 'allow' }
}
