import type { Language, ScanWarning } from './schema.ts';

/**
 * Scan warnings in the requested language. Stages record a warning's code and the facts it is made of;
 * `localiseWarning` writes it in the scan's language at the end. Technical details (error texts from the
 * network or the browser) are quoted as they are.
 */
export type WarningFacts =
  | { kind: 'refused'; count: number; example?: string; lighthouse?: boolean }
  | { kind: 'consent_without_interaction' }
  | { kind: 'time_limit'; ms: number }
  | { kind: 'parse_failed'; detail: string }
  | { kind: 'truncated'; bytes: number }
  | { kind: 'fetch'; code: FetchWarningCode; detail: string; receivedBytes?: number }
  | { kind: 'http_status'; status: number }
  | { kind: 'browser_partial' }
  | { kind: 'browser_incomplete'; detail: string }
  | { kind: 'browser_failed'; timedOut: boolean; detail: string }
  | { kind: 'pagespeed_no_time' }
  | { kind: 'pagespeed'; detail: string; fromLighthouse: boolean }
  | { kind: 'ai_fallback'; detail?: string };

export type FetchWarningCode = 'fetch_timeout' | 'fetch_failed' | 'too_many_redirects' | 'not_html';

export interface WarningDraft {
  code: string;
  facts: WarningFacts;
}

interface WarningTexts {
  /** A browser refusal names an example; a Lighthouse one does not. */
  refused: (count: number, example: string | undefined) => string;
  consentWithoutInteraction: string;
  timeLimit: (ms: number) => string;
  parseFailed: (detail: string) => string;
  truncated: (bytes: number) => string;
  fetch: Record<Exclude<FetchWarningCode, 'fetch_timeout'>, (detail: string) => string> & { fetch_timeout: string; partial: (bytes: number) => string };
  httpStatus: (status: number) => string;
  browserPartial: string;
  browserIncomplete: (detail: string) => string;
  browserFailed: (timedOut: boolean, detail: string) => string;
  pagespeedNoTime: string;
  /** `fromLighthouse`: the detail is Lighthouse's own explanation, not an error of the run. */
  pagespeed: (detail: string, fromLighthouse: boolean) => string;
  aiFallback: (detail: string | undefined) => string;
}

const en: WarningTexts = {
  refused: (n, example) =>
    example === undefined ? `${n} request(s) to non-public addresses were blocked.` : `${n} browser request(s) to non-public addresses were blocked, e.g. ${example}.`,
  consentWithoutInteraction: 'A consent update granting storage ran although the scanner never interacted with the page.',
  timeLimit: (ms) => `The scan took longer than its ${ms} ms limit.`,
  parseFailed: (detail) => `The HTML could not be parsed: ${detail}`,
  truncated: (bytes) => `The page is larger than ${bytes} bytes; only the first ${bytes} bytes were analysed.`,
  fetch: {
    fetch_timeout: 'The HTTP fetch hit its time limit.',
    fetch_failed: (detail) => `${detail}.`,
    too_many_redirects: (detail) => `${detail}.`,
    not_html: (detail) => `${detail}.`,
    partial: (bytes) => ` The ${bytes} bytes received until then were analysed.`,
  },
  httpStatus: (status) => `The page answered HTTP ${status}.`,
  browserPartial: 'The page did not finish loading in time; findings cover what it did until then.',
  browserIncomplete: (detail) => `Some page data could not be read: ${detail}`,
  browserFailed: (timedOut, detail) => `Browser stage ${timedOut ? 'timed out' : 'failed'}: ${detail}. Results come from the HTML only.`,
  pagespeedNoTime: 'No time was left for the page-speed run.',
  pagespeed: (detail, fromLighthouse) => (fromLighthouse ? detail : `Page speed: ${detail}`),
  aiFallback: (detail) =>
    detail ? `The language model could not write the summary (${detail}); the builtin writer was used.` : 'No time was left for the language model; the builtin writer was used.',
};

const de: WarningTexts = {
  refused: (n, example) => `${n} Anfrage(n) an nicht öffentliche Adressen wurden blockiert${example ? `, z. B. ${example}` : ''}.`,
  consentWithoutInteraction: 'Ein Consent-Update, das Speicherung erlaubt, lief, obwohl der Scanner nie mit der Seite interagiert hat.',
  timeLimit: (ms) => `Der Scan dauerte länger als sein Limit von ${ms} ms.`,
  parseFailed: (detail) => `Das HTML konnte nicht gelesen werden: ${detail}`,
  truncated: (bytes) => `Die Seite ist größer als ${bytes} Bytes; nur die ersten ${bytes} Bytes wurden ausgewertet.`,
  fetch: {
    fetch_timeout: 'Der HTTP-Abruf hat sein Zeitlimit erreicht.',
    fetch_failed: (detail) => `Der HTTP-Abruf schlug fehl: ${detail}.`,
    too_many_redirects: (detail) => `Zu viele Weiterleitungen: ${detail}.`,
    not_html: (detail) => `Die Seite ist kein HTML: ${detail}.`,
    partial: (bytes) => ` Die bis dahin empfangenen ${bytes} Bytes wurden ausgewertet.`,
  },
  httpStatus: (status) => `Die Seite antwortete mit HTTP ${status}.`,
  browserPartial: 'Die Seite wurde nicht rechtzeitig fertig geladen; die Ergebnisse zeigen, was sie bis dahin getan hat.',
  browserIncomplete: (detail) => `Einige Seitendaten konnten nicht gelesen werden: ${detail}`,
  browserFailed: (timedOut, detail) => `Der Browser-Schritt ${timedOut ? 'hat das Zeitlimit überschritten' : 'ist fehlgeschlagen'}: ${detail}. Die Ergebnisse stammen nur aus dem HTML.`,
  pagespeedNoTime: 'Für die Performance-Messung blieb keine Zeit.',
  pagespeed: (detail) => `Performance-Messung: ${detail}`,
  aiFallback: (detail) =>
    detail ? `Das Sprachmodell konnte die Zusammenfassung nicht schreiben (${detail}); der eingebaute Text wurde verwendet.` : 'Für das Sprachmodell blieb keine Zeit; der eingebaute Text wurde verwendet.',
};

const fr: WarningTexts = {
  refused: (n, example) => `${n} requête(s) vers des adresses non publiques ont été bloquées${example ? `, p. ex. ${example}` : ''}.`,
  consentWithoutInteraction: "Une mise à jour du consentement autorisant le stockage a été exécutée alors que le scanner n'a jamais interagi avec la page.",
  timeLimit: (ms) => `L'analyse a dépassé sa limite de ${ms} ms.`,
  parseFailed: (detail) => `Le HTML n'a pas pu être analysé : ${detail}`,
  truncated: (bytes) => `La page dépasse ${bytes} octets ; seuls les ${bytes} premiers octets ont été analysés.`,
  fetch: {
    fetch_timeout: 'La requête HTTP a atteint sa limite de temps.',
    fetch_failed: (detail) => `La requête HTTP a échoué : ${detail}.`,
    too_many_redirects: (detail) => `Trop de redirections : ${detail}.`,
    not_html: (detail) => `La page n'est pas du HTML : ${detail}.`,
    partial: (bytes) => ` Les ${bytes} octets reçus jusque-là ont été analysés.`,
  },
  httpStatus: (status) => `La page a répondu HTTP ${status}.`,
  browserPartial: "La page n'a pas fini de se charger à temps ; les résultats couvrent ce qu'elle a fait jusque-là.",
  browserIncomplete: (detail) => `Certaines données de la page n'ont pas pu être lues : ${detail}`,
  browserFailed: (timedOut, detail) => `L'étape navigateur ${timedOut ? 'a dépassé le délai' : 'a échoué'} : ${detail}. Les résultats proviennent du HTML seul.`,
  pagespeedNoTime: 'Il ne restait pas de temps pour la mesure de performance.',
  pagespeed: (detail) => `Mesure de performance : ${detail}`,
  aiFallback: (detail) =>
    detail
      ? `Le modèle de langage n'a pas pu rédiger le résumé (${detail}) ; le rédacteur intégré a été utilisé.`
      : 'Il ne restait pas de temps pour le modèle de langage ; le rédacteur intégré a été utilisé.',
};

const es: WarningTexts = {
  refused: (n, example) => `Se bloquearon ${n} solicitud(es) a direcciones no públicas${example ? `, p. ej. ${example}` : ''}.`,
  consentWithoutInteraction: 'Se ejecutó una actualización de consentimiento que concede almacenamiento aunque el escáner nunca interactuó con la página.',
  timeLimit: (ms) => `El análisis superó su límite de ${ms} ms.`,
  parseFailed: (detail) => `No se pudo analizar el HTML: ${detail}`,
  truncated: (bytes) => `La página supera los ${bytes} bytes; solo se analizaron los primeros ${bytes} bytes.`,
  fetch: {
    fetch_timeout: 'La descarga HTTP alcanzó su límite de tiempo.',
    fetch_failed: (detail) => `La descarga HTTP falló: ${detail}.`,
    too_many_redirects: (detail) => `Demasiadas redirecciones: ${detail}.`,
    not_html: (detail) => `La página no es HTML: ${detail}.`,
    partial: (bytes) => ` Se analizaron los ${bytes} bytes recibidos hasta entonces.`,
  },
  httpStatus: (status) => `La página respondió HTTP ${status}.`,
  browserPartial: 'La página no terminó de cargarse a tiempo; los resultados cubren lo que hizo hasta entonces.',
  browserIncomplete: (detail) => `No se pudieron leer algunos datos de la página: ${detail}`,
  browserFailed: (timedOut, detail) => `La etapa del navegador ${timedOut ? 'agotó el tiempo' : 'falló'}: ${detail}. Los resultados proceden solo del HTML.`,
  pagespeedNoTime: 'No quedó tiempo para la medición de rendimiento.',
  pagespeed: (detail) => `Medición de rendimiento: ${detail}`,
  aiFallback: (detail) =>
    detail ? `El modelo de lenguaje no pudo escribir el resumen (${detail}); se usó el redactor integrado.` : 'No quedó tiempo para el modelo de lenguaje; se usó el redactor integrado.',
};

const it: WarningTexts = {
  refused: (n, example) => `${n} richiesta/e verso indirizzi non pubblici sono state bloccate${example ? `, ad es. ${example}` : ''}.`,
  consentWithoutInteraction: "È stato eseguito un aggiornamento del consenso che concede l'archiviazione, anche se lo scanner non ha mai interagito con la pagina.",
  timeLimit: (ms) => `La scansione ha superato il limite di ${ms} ms.`,
  parseFailed: (detail) => `Non è stato possibile analizzare l'HTML: ${detail}`,
  truncated: (bytes) => `La pagina supera i ${bytes} byte; sono stati analizzati solo i primi ${bytes} byte.`,
  fetch: {
    fetch_timeout: 'Il recupero HTTP ha raggiunto il limite di tempo.',
    fetch_failed: (detail) => `Il recupero HTTP non è riuscito: ${detail}.`,
    too_many_redirects: (detail) => `Troppi reindirizzamenti: ${detail}.`,
    not_html: (detail) => `La pagina non è HTML: ${detail}.`,
    partial: (bytes) => ` Sono stati analizzati i ${bytes} byte ricevuti fino ad allora.`,
  },
  httpStatus: (status) => `La pagina ha risposto HTTP ${status}.`,
  browserPartial: 'La pagina non ha finito di caricarsi in tempo; i risultati coprono ciò che ha fatto fino ad allora.',
  browserIncomplete: (detail) => `Non è stato possibile leggere alcuni dati della pagina: ${detail}`,
  browserFailed: (timedOut, detail) => `La fase del browser ${timedOut ? 'è scaduta' : 'non è riuscita'}: ${detail}. I risultati provengono solo dall'HTML.`,
  pagespeedNoTime: 'Non è rimasto tempo per la misurazione delle prestazioni.',
  pagespeed: (detail) => `Misurazione delle prestazioni: ${detail}`,
  aiFallback: (detail) =>
    detail
      ? `Il modello linguistico non ha potuto scrivere il riepilogo (${detail}); è stato usato il redattore integrato.`
      : 'Non è rimasto tempo per il modello linguistico; è stato usato il redattore integrato.',
};

const nl: WarningTexts = {
  refused: (n, example) => `${n} verzoek(en) naar niet-openbare adressen zijn geblokkeerd${example ? `, bijv. ${example}` : ''}.`,
  consentWithoutInteraction: 'Er liep een toestemmingsupdate die opslag toestaat, hoewel de scanner nooit iets op de pagina heeft aangeklikt.',
  timeLimit: (ms) => `De scan duurde langer dan de limiet van ${ms} ms.`,
  parseFailed: (detail) => `De HTML kon niet worden gelezen: ${detail}`,
  truncated: (bytes) => `De pagina is groter dan ${bytes} bytes; alleen de eerste ${bytes} bytes zijn geanalyseerd.`,
  fetch: {
    fetch_timeout: 'Het ophalen via HTTP bereikte de tijdslimiet.',
    fetch_failed: (detail) => `Het ophalen via HTTP mislukte: ${detail}.`,
    too_many_redirects: (detail) => `Te veel doorverwijzingen: ${detail}.`,
    not_html: (detail) => `De pagina is geen HTML: ${detail}.`,
    partial: (bytes) => ` De ${bytes} bytes die tot dan toe binnenkwamen zijn geanalyseerd.`,
  },
  httpStatus: (status) => `De pagina antwoordde met HTTP ${status}.`,
  browserPartial: 'De pagina was niet op tijd geladen; de bevindingen dekken wat ze tot dan toe deed.',
  browserIncomplete: (detail) => `Sommige paginagegevens konden niet worden gelezen: ${detail}`,
  browserFailed: (timedOut, detail) => `De browserstap ${timedOut ? 'liep uit de tijd' : 'is mislukt'}: ${detail}. De resultaten komen alleen uit de HTML.`,
  pagespeedNoTime: 'Er was geen tijd meer voor de prestatiemeting.',
  pagespeed: (detail) => `Prestatiemeting: ${detail}`,
  aiFallback: (detail) =>
    detail ? `Het taalmodel kon de samenvatting niet schrijven (${detail}); de ingebouwde schrijver is gebruikt.` : 'Er was geen tijd meer voor het taalmodel; de ingebouwde schrijver is gebruikt.',
};

const pt: WarningTexts = {
  refused: (n, example) => `${n} pedido(s) para endereços não públicos foram bloqueados${example ? `, p. ex. ${example}` : ''}.`,
  consentWithoutInteraction: 'Foi executada uma atualização de consentimento que concede armazenamento, embora o scanner nunca tenha interagido com a página.',
  timeLimit: (ms) => `A análise demorou mais do que o limite de ${ms} ms.`,
  parseFailed: (detail) => `Não foi possível analisar o HTML: ${detail}`,
  truncated: (bytes) => `A página tem mais de ${bytes} bytes; só os primeiros ${bytes} bytes foram analisados.`,
  fetch: {
    fetch_timeout: 'O pedido HTTP atingiu o limite de tempo.',
    fetch_failed: (detail) => `O pedido HTTP falhou: ${detail}.`,
    too_many_redirects: (detail) => `Demasiados redirecionamentos: ${detail}.`,
    not_html: (detail) => `A página não é HTML: ${detail}.`,
    partial: (bytes) => ` Foram analisados os ${bytes} bytes recebidos até então.`,
  },
  httpStatus: (status) => `A página respondeu HTTP ${status}.`,
  browserPartial: 'A página não terminou de carregar a tempo; os resultados cobrem o que fez até então.',
  browserIncomplete: (detail) => `Não foi possível ler alguns dados da página: ${detail}`,
  browserFailed: (timedOut, detail) => `A etapa do navegador ${timedOut ? 'esgotou o tempo' : 'falhou'}: ${detail}. Os resultados vêm apenas do HTML.`,
  pagespeedNoTime: 'Não sobrou tempo para a medição de desempenho.',
  pagespeed: (detail) => `Medição de desempenho: ${detail}`,
  aiFallback: (detail) =>
    detail ? `O modelo de linguagem não conseguiu escrever o resumo (${detail}); foi usado o redator integrado.` : 'Não sobrou tempo para o modelo de linguagem; foi usado o redator integrado.',
};

const pl: WarningTexts = {
  refused: (n, example) => `Zablokowane żądania do adresów niepublicznych: ${n}${example ? `, np. ${example}` : ''}.`,
  consentWithoutInteraction: 'Wykonano aktualizację zgody zezwalającą na zapis, choć skaner nie wchodził w interakcję ze stroną.',
  timeLimit: (ms) => `Skanowanie przekroczyło limit ${ms} ms.`,
  parseFailed: (detail) => `Nie udało się przetworzyć HTML: ${detail}`,
  truncated: (bytes) => `Strona przekracza ${bytes} bajtów; przeanalizowano tylko pierwsze ${bytes} bajtów.`,
  fetch: {
    fetch_timeout: 'Pobieranie HTTP przekroczyło limit czasu.',
    fetch_failed: (detail) => `Pobieranie HTTP nie powiodło się: ${detail}.`,
    too_many_redirects: (detail) => `Zbyt wiele przekierowań: ${detail}.`,
    not_html: (detail) => `Strona nie jest dokumentem HTML: ${detail}.`,
    partial: (bytes) => ` Przeanalizowano ${bytes} bajtów odebranych do tego momentu.`,
  },
  httpStatus: (status) => `Strona odpowiedziała kodem HTTP ${status}.`,
  browserPartial: 'Strona nie załadowała się w czasie; wyniki obejmują to, co zrobiła do tego momentu.',
  browserIncomplete: (detail) => `Nie udało się odczytać części danych strony: ${detail}`,
  browserFailed: (timedOut, detail) => `Etap przeglądarki ${timedOut ? 'przekroczył limit czasu' : 'nie powiódł się'}: ${detail}. Wyniki pochodzą tylko z HTML.`,
  pagespeedNoTime: 'Nie zostało czasu na pomiar wydajności.',
  pagespeed: (detail) => `Pomiar wydajności: ${detail}`,
  aiFallback: (detail) => (detail ? `Model językowy nie napisał podsumowania (${detail}); użyto wbudowanego generatora.` : 'Nie zostało czasu na model językowy; użyto wbudowanego generatora.'),
};

const TEXTS: Record<Language, WarningTexts> = { en, de, fr, es, it, nl, pt, pl };

function write(texts: WarningTexts, facts: WarningFacts): string {
  switch (facts.kind) {
    case 'refused':
      return (facts.lighthouse ? 'Lighthouse: ' : '') + texts.refused(facts.count, facts.example);
    case 'consent_without_interaction':
      return texts.consentWithoutInteraction;
    case 'time_limit':
      return texts.timeLimit(facts.ms);
    case 'parse_failed':
      return texts.parseFailed(facts.detail);
    case 'truncated':
      return texts.truncated(facts.bytes);
    case 'fetch': {
      const lead = facts.code === 'fetch_timeout' ? texts.fetch.fetch_timeout : texts.fetch[facts.code](facts.detail.replace(/\.$/, ''));
      return lead + (facts.receivedBytes === undefined ? '' : texts.fetch.partial(facts.receivedBytes));
    }
    case 'http_status':
      return texts.httpStatus(facts.status);
    case 'browser_partial':
      return texts.browserPartial;
    case 'browser_incomplete':
      return texts.browserIncomplete(facts.detail);
    case 'browser_failed':
      return texts.browserFailed(facts.timedOut, facts.detail);
    case 'pagespeed_no_time':
      return texts.pagespeedNoTime;
    case 'pagespeed':
      return texts.pagespeed(facts.detail, facts.fromLighthouse);
    case 'ai_fallback':
      return texts.aiFallback(facts.detail);
  }
}

/** The warning as the API shows it: its code and its message in `language`. */
export function localiseWarning(language: Language, warning: WarningDraft): ScanWarning {
  return { code: warning.code, message: write(TEXTS[language], warning.facts) };
}
