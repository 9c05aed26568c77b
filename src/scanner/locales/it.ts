import { joiner, type SummaryTexts, type WarningTexts } from './texts.js';

export const summary: SummaryTexts = {
  decimal: ',',
  list: joiner('e'),
  trackers: (host, names) =>
    names.length === 0
      ? `Nessun tracker trovato su ${host}.`
      : `${names.length === 1 ? 'Trovato 1 tracker' : `Trovati ${names.length} tracker`} su ${host}: ${summary.list(names)}.`,
  tagManagers: (names) => `Gestione dei tag: ${summary.list(names)}.`,
  onlyTagManagers: (host, names) =>
    `Nessun tracker di misurazione trovato su ${host}, solo gestione dei tag: ${summary.list(names)}.`,
  cmp: (name) => `Piattaforma di gestione del consenso: ${name}.`,
  noCmp: (banner) =>
    banner
      ? 'Nessuna piattaforma di gestione del consenso nota rilevata, ma è visibile un avviso sui cookie.'
      : 'Non è stata rilevata alcuna piattaforma di gestione del consenso né un banner dei cookie.',
  noTrackersUnchecked: (host) =>
    `Nell'HTML di ${host} non è stato trovato alcun tracker; quelli caricati dagli script non sono stati verificati perché la fase del browser non è stata completata.`,
  noCmpUnchecked:
    'Nel codice della pagina non è stata trovata alcuna piattaforma di gestione del consenso; non è stato possibile verificare se compare un banner dei cookie perché la fase del browser non è stata completata.',
  noscriptOnly: (names) =>
    `Installato solo dentro <noscript>, che non viene mai eseguito per i visitatori con JavaScript (installazione non funzionante, nessuna misurazione): ${summary.list(names)}.`,
  referenced: (names) =>
    `Citati nel codice della pagina ma mai caricati né hanno inviato nulla durante la scansione, quindi non conteggiati come tracker: ${summary.list(names)}.`,
  configuredNotFired: (items) =>
    `Configurati nel tag manager ma non attivati durante la scansione (la scansione non clicca mai, non invia moduli e non dà il consenso): ${summary.list(items)}.`,
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} è attivo${mode ? ` in modalità ${summary.mode(mode)}` : ''} (predefinito: analytics_storage ${summary.state(analytics)}, ad_storage ${summary.state(ads)}).`,
  noConsentMode: 'Google Consent Mode non è stato rilevato, nonostante siano presenti tag Google.',
  beforeConsent: (names) =>
    `${names.length} tracker ${names.length === 1 ? 'ha' : 'hanno'} inviato richieste prima di qualsiasi consenso: ${summary.list(names)}.`,
  cookieless: (names) =>
    `${summary.list(names)} ${names.length === 1 ? 'ha' : 'hanno'} inviato solo ping di Consent Mode senza cookie.`,
  nothingBeforeConsent: 'Nessun tracker ha inviato richieste prima del consenso.',
  beforeConsentUnknown:
    'Non è stato possibile verificare se i tracker si attivano prima del consenso perché la fase del browser non è stata completata.',
  serverSide: (endpoints) =>
    `È stato rilevato il tagging lato server${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'Nessun tagging lato server rilevato: i tag inviano i dati direttamente ai fornitori.',
  loss: (analytics, ads) => {
    const parts = [
      analytics && `circa il ${analytics} % degli eventi di analytics`,
      ads && `circa il ${ads} % delle conversioni pubblicitarie`,
    ].filter(Boolean) as string[];
    return `Perdita di dati stimata: ${summary.list(parts)}.`;
  },
  recover: (points) =>
    `Il tagging lato server su un dominio proprio potrebbe recuperare circa ${points} punti percentuali.`,
  pagespeed: (score, lcp, tbt, cls) =>
    `Punteggio di prestazioni mobile: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'concesso' : value === 'denied' ? 'negato' : 'non impostato'),
  mode: (mode) => (mode === 'advanced' ? 'avanzata' : 'base'),
  modeExplanation: {
    advanced:
      'Modalità avanzata: i tag Google si caricano prima del consenso e, finché l’archiviazione è negata, inviano ping senza cookie (nessun cookie letto o scritto; Google li usa per modellare le conversioni). Questi ping sono richieste precedenti al consenso, quindi i tag che li inviano contano come attivati prima del consenso.',
    basic:
      'Modalità base: i tag Google restano bloccati finché il visitatore non acconsente, quindi prima del consenso non viene inviato nulla a Google; Google modella le conversioni senza dati dei visitatori che rifiutano.',
  },
  rec: {
    consentNeverGranted: `Google Consent Mode nega l'archiviazione per impostazione predefinita, ma nessuna piattaforma né banner del consenso permette ai visitatori di concederla: nessuno può mai acconsentire. Aggiungete un banner che invii gtag('consent', 'update', …) quando il visitatore accetta, oppure rimuovete i valori negati predefiniti se il consenso non è richiesto.`,
    addCmp:
      'Adottate una piattaforma di gestione del consenso e caricate i tag di tracciamento solo dopo il consenso dei visitatori.',
    blockBeforeConsent: (names) =>
      `Bloccate ${summary.list(names)} fino al consenso del visitatore (blocco degli script della CMP o trigger di consenso nel tag manager).`,
    addConsentMode:
      'Implementate Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) tramite la vostra CMP.',
    upgradeConsentMode: (keys) =>
      `Passate a Consent Mode v2 impostando anche ${summary.list(keys)}, necessari per la pubblicità personalizzata nel SEE da marzo 2024.`,
    serverSide: (domain, points) =>
      `Spostate i tag sul tagging lato server in un sottodominio proprio (ad es. data.${domain}) per recuperare circa ${points} punti percentuali di dati persi.`,
    removeUa: 'Rimuovete Universal Analytics: non elabora più dati da luglio 2023.',
    fixNoscriptOnly: (names) =>
      `Installate ${summary.list(names)} con lo snippet JavaScript del fornitore: un fallback <noscript> da solo non viene mai eseguito nei browser con JavaScript.`,
    metaCapi: 'Inviate gli eventi Meta anche tramite l’API Conversions, oltre al pixel del browser.',
    pagespeed: (score) =>
      `Migliorate la velocità della pagina (punteggio ${score}/100): caricate i tag in modo asincrono e rinviate quelli non necessari alla prima visualizzazione.`,
    noTracking:
      'Nessun tracciamento trovato: se vi aspettate tag di analytics o pubblicitari, verificate che siano pubblicati.',
  },
  neverGrantedLoss: (names) =>
    `Google Consent Mode nega l'archiviazione per impostazione predefinita e nulla nella pagina può concederla: ${summary.list(names)} perde tutta la misurazione soggetta a consenso (contata come 100 % di perdita per consenso).`,
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Per ogni tracker la quota di dati conservata è (1 − perdita da consenso) × (1 − perdita da blocchi) × (1 − perdita da ITP).',
      consent
        ? `È stato trovato un banner del consenso: si presume che il ${rates.consent} % dei visitatori rifiuti.`
        : 'Non è stato trovato alcun meccanismo di consenso, quindi non si conta alcuna perdita da consenso (i tag potrebbero funzionare senza il consenso richiesto dalla legge).',
      `Gli ad blocker sono attivi sul ${rates.blockers} % delle pagine viste; il ${rates.analyticsBlock} % di essi blocca anche gli analytics e il ${rates.adBlock} % i pixel pubblicitari. I tag serviti dal dominio del sito evitano il ${rates.escape} % di questo blocco.`,
      `Safari (${rates.safari} % del traffico) perde il ${rates.itp} % delle conversioni pubblicitarie perché i cookie impostati via script scadono dopo 7 giorni; un server di tagging first-party ne recupera il ${rates.itpRecovery} %.`,
      analytics || ads
        ? `Risultato: si perde ${summary.list([analytics && `il ${analytics} % degli eventi di analytics`, ads && `il ${ads} % delle conversioni pubblicitarie`].filter(Boolean) as string[])}.`
        : 'Non sono stati trovati tracker di misurazione, quindi non c’è perdita.',
      'I consensi rifiutati non possono né devono essere recuperati con il tagging lato server.',
    ].join(' '),
};

export const warnings: WarningTexts = {
  refused: (n, example) =>
    `${n} richiesta/e verso indirizzi non pubblici sono state bloccate${example ? `, ad es. ${example}` : ''}.`,
  consentWithoutInteraction:
    "È stato eseguito un aggiornamento del consenso che concede l'archiviazione, anche se lo scanner non ha mai cliccato su un banner dei cookie (scorre, muove il puntatore, preme un tasto e tocca la pagina, nient'altro).",
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
  observationCut: (ms) =>
    `La pagina era ancora attiva quando l'osservazione è terminata dopo ${ms} ms; i tag che si attivano dopo non sono stati visti.`,
  consentRunCut:
    'Il controllo del consenso non ha potuto completare ogni passaggio entro il limite di tempo («rifiuta tutto» o «accetta tutto» è stato interrotto); il confronto copre ciò che è stato osservato fino ad allora.',
  pagesFewer: (asked, found) =>
    `Solo ${found} pagin${found === 1 ? 'a interna collegata' : 'e interne collegate'} dalla pagina iniziale per le ${asked} pagine richieste.`,
  pagesSkipped: (count) =>
    `${count === 1 ? '1 pagina è stata saltata' : `${count} pagine sono state saltate`}: il limite di tempo della scansione non lasciava spazio.`,
  browserPartial: 'La pagina non ha finito di caricarsi in tempo; i risultati coprono ciò che ha fatto fino ad allora.',
  browserIncomplete: (detail) => `Non è stato possibile leggere alcuni dati della pagina: ${detail}`,
  browserFailed: (timedOut, detail) =>
    `La fase del browser ${timedOut ? 'è scaduta' : 'non è riuscita'}: ${detail}. I risultati provengono solo dall'HTML.`,
  pagespeedNoTime: 'Non è rimasto tempo per la misurazione delle prestazioni.',
  pagespeed: (detail) => `Misurazione delle prestazioni: ${detail}`,
  aiFallback: (detail) =>
    detail
      ? `Il modello linguistico non ha potuto scrivere il riepilogo (${detail}); è stato usato il redattore integrato.`
      : 'Non è rimasto tempo per il modello linguistico; è stato usato il redattore integrato.',
};
