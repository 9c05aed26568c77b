import { joiner, type SummaryTexts, type WarningTexts } from './texts.js';

export const summary: SummaryTexts = {
  decimal: ',',
  list: joiner('und'),
  trackers: (host, names) =>
    names.length === 0
      ? `Auf ${host} wurden keine Tracker gefunden.`
      : `${names.length} Tracker auf ${host} gefunden: ${summary.list(names)}.`,
  tagManagers: (names) => `Tag-Management: ${summary.list(names)}.`,
  onlyTagManagers: (host, names) =>
    `Auf ${host} wurden keine messenden Tracker gefunden, nur Tag-Management: ${summary.list(names)}.`,
  cmp: (name) => `Consent-Management-Plattform: ${name}.`,
  noCmp: (banner) =>
    banner
      ? 'Keine bekannte Consent-Management-Plattform erkannt, aber ein Cookie-Hinweis ist sichtbar.'
      : 'Weder eine Consent-Management-Plattform noch ein Cookie-Banner wurde erkannt.',
  noTrackersUnchecked: (host) =>
    `Im HTML von ${host} wurden keine Tracker gefunden; per Skript geladene Tracker konnten nicht geprüft werden, weil die Browser-Phase nicht abgeschlossen wurde.`,
  noCmpUnchecked:
    'Im Seitencode wurde keine Consent-Management-Plattform gefunden; ob ein Cookie-Banner erscheint, konnte nicht geprüft werden, weil die Browser-Phase nicht abgeschlossen wurde.',
  noscriptOnly: (names) =>
    `Nur in <noscript> eingebunden, das bei Besuchern mit JavaScript nie ausgeführt wird (die Einbindung ist defekt und misst nichts): ${summary.list(names)}.`,
  referenced: (names) =>
    `Im Code der Seite genannt, aber während des Scans nie geladen und ohne gesendete Daten, daher nicht als Tracker gezählt: ${summary.list(names)}.`,
  configuredNotFired: (items) =>
    `Im Tag Manager eingerichtet, aber während des Scans nicht ausgelöst (der Scan klickt nie, sendet kein Formular ab und erteilt keine Einwilligung): ${summary.list(items)}.`,
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} ist aktiv${mode ? ` im ${summary.mode(mode)} Modus` : ''} (Standard: analytics_storage ${summary.state(analytics)}, ad_storage ${summary.state(ads)}).`,
  noConsentMode: 'Google Consent Mode wurde nicht erkannt, obwohl Google-Tags vorhanden sind.',
  beforeConsent: (names) =>
    `${names.length} Tracker ${names.length === 1 ? 'hat' : 'haben'} vor jeder Einwilligung Anfragen gesendet: ${summary.list(names)}.`,
  cookieless: (names) =>
    `${summary.list(names)} ${names.length === 1 ? 'hat' : 'haben'} nur cookielose Consent-Mode-Pings gesendet.`,
  nothingBeforeConsent: 'Kein Tracker hat vor der Einwilligung Anfragen gesendet.',
  beforeConsentUnknown:
    'Ob Tracker vor der Einwilligung auslösen, konnte nicht geprüft werden, weil die Browser-Phase nicht abgeschlossen wurde.',
  serverSide: (endpoints) =>
    `Serverseitiges Tagging wurde erkannt${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'Kein serverseitiges Tagging erkannt: Die Tags senden Daten direkt an die Anbieter.',
  loss: (analytics, ads) => {
    const parts = [
      analytics && `etwa ${analytics} % der Analytics-Ereignisse`,
      ads && `etwa ${ads} % der Werbe-Conversions`,
    ].filter(Boolean) as string[];
    return `Geschätzter Datenverlust: ${summary.list(parts)}.`;
  },
  recover: (points) =>
    `Serverseitiges Tagging auf einer First-Party-Domain könnte etwa ${points} Prozentpunkte zurückgewinnen.`,
  pagespeed: (score, lcp, tbt, cls) =>
    `Mobile Performance-Bewertung: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'erteilt' : value === 'denied' ? 'abgelehnt' : 'nicht gesetzt'),
  mode: (mode) => (mode === 'advanced' ? 'erweiterten' : 'einfachen'),
  modeExplanation: {
    advanced:
      'Erweiterter Modus: Google-Tags laden vor der Einwilligung und senden, solange die Speicherung abgelehnt ist, cookielose Pings (ohne Cookies zu lesen oder zu schreiben; Google modelliert damit Conversions). Diese Pings sind Anfragen vor der Einwilligung, die sendenden Tags gelten daher als vor der Einwilligung ausgelöst.',
    basic:
      'Einfacher Modus: Google-Tags werden bis zur Einwilligung zurückgehalten, vor der Einwilligung wird nichts an Google gesendet; Google modelliert Conversions ohne Daten der ablehnenden Besucher.',
  },
  rec: {
    consentNeverGranted: `Google Consent Mode verweigert die Speicherung standardmäßig, aber keine Consent-Plattform und kein Banner lässt Besucher zustimmen: Niemand kann je einwilligen. Fügen Sie ein Consent-Banner hinzu, das bei Zustimmung gtag('consent', 'update', …) sendet, oder entfernen Sie die verweigernden Standardwerte, wenn keine Einwilligung nötig ist.`,
    addCmp: 'Führen Sie eine Consent-Management-Plattform ein und laden Sie Tracking-Tags erst nach der Einwilligung.',
    blockBeforeConsent: (names) =>
      `Halten Sie ${summary.list(names)} bis zur Einwilligung zurück (Skript-Blockierung der CMP oder Consent-Trigger im Tag Manager).`,
    addConsentMode:
      'Implementieren Sie Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) über Ihre CMP.',
    upgradeConsentMode: (keys) =>
      `Stellen Sie auf Consent Mode v2 um und setzen Sie zusätzlich ${summary.list(keys)}, die seit März 2024 im EWR für personalisierte Werbung nötig sind.`,
    serverSide: (domain, points) =>
      `Verlagern Sie Ihre Tags auf serverseitiges Tagging unter einer eigenen Subdomain (z. B. data.${domain}), um etwa ${points} Prozentpunkte verlorener Daten zurückzugewinnen.`,
    removeUa: 'Entfernen Sie Universal Analytics: Es verarbeitet seit Juli 2023 keine Daten mehr.',
    fixNoscriptOnly: (names) =>
      `Binden Sie ${summary.list(names)} mit dem JavaScript-Snippet des Anbieters ein: Ein <noscript>-Fallback allein läuft in Browsern mit JavaScript nie.`,
    metaCapi: 'Senden Sie Meta-Ereignisse zusätzlich zum Browser-Pixel über die Conversions API.',
    pagespeed: (score) =>
      `Verbessern Sie die Ladegeschwindigkeit (Bewertung ${score}/100): Tags asynchron laden und nicht sofort benötigte verzögern.`,
    noTracking:
      'Es wurde kein Tracking gefunden: Falls Sie hier Analytics- oder Werbe-Tags erwarten, prüfen Sie, ob sie veröffentlicht sind.',
  },
  neverGrantedLoss: (names) =>
    `Google Consent Mode verweigert die Speicherung standardmäßig und nichts auf der Seite kann sie erteilen; daher verliert ${summary.list(names)} alle einwilligungspflichtigen Messungen (als 100 % Einwilligungsverlust gezählt).`,
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Pro Tracker ist der erhaltene Datenanteil (1 − Consent-Verlust) × (1 − Blocker-Verlust) × (1 − ITP-Verlust).',
      consent
        ? `Es wurde ein Consent-Banner gefunden; angenommen wird, dass ${rates.consent} % der Besucher die Einwilligung verweigern.`
        : 'Es wurde kein Einwilligungsmechanismus gefunden, daher wird kein Consent-Verlust gezählt (die Tags laufen dann womöglich ohne die gesetzlich nötige Einwilligung).',
      `Werbeblocker sind bei ${rates.blockers} % der Seitenaufrufe aktiv; ${rates.analyticsBlock} % davon blockieren auch Analytics und ${rates.adBlock} % Werbepixel. Tags von der eigenen Domain entgehen ${rates.escape} % dieser Blockierung.`,
      `Safari (${rates.safari} % des Traffics) verliert ${rates.itp} % seiner Werbe-Conversions, weil per Skript gesetzte Cookies nach 7 Tagen ablaufen; ein First-Party-Tagging-Server gewinnt ${rates.itpRecovery} % davon zurück.`,
      analytics || ads
        ? `Ergebnis: ${summary.list([analytics && `${analytics} % der Analytics-Ereignisse`, ads && `${ads} % der Werbe-Conversions`].filter(Boolean) as string[])} gehen verloren.`
        : 'Es wurden keine messenden Tracker gefunden, daher gibt es keinen Verlust.',
      'Verweigerte Einwilligungen können und sollen durch serverseitiges Tagging nicht zurückgewonnen werden.',
    ].join(' '),
};

export const warnings: WarningTexts = {
  refused: (n, example) =>
    `${n} Anfrage(n) an nicht öffentliche Adressen wurden blockiert${example ? `, z. B. ${example}` : ''}.`,
  consentWithoutInteraction:
    'Ein Consent-Update, das Speicherung erlaubt, lief, obwohl der Scanner nie auf ein Cookie-Banner geklickt hat (er scrollt nur, bewegt den Zeiger, drückt eine Taste und berührt die Seite).',
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
  observationCut: (ms) =>
    `Die Seite war noch aktiv, als die Beobachtung nach ${ms} ms endete; später feuernde Tags wurden nicht gesehen.`,
  consentRunCut:
    'Die Einwilligungsprüfung konnte nicht jeden Durchlauf innerhalb des Zeitlimits beenden („Alle ablehnen“ oder „Alle akzeptieren“ wurde abgebrochen); der Vergleich deckt ab, was bis dahin beobachtet wurde.',
  pagesFewer: (asked, found) =>
    `Von der Startseite aus waren nur ${found} interne Seite${found === 1 ? '' : 'n'} verlinkt, die zu den ${asked} angefragten Seiten hinzukommen konnte${found === 1 ? '' : 'n'}.`,
  pagesSkipped: (count) =>
    `${count} Seite${count === 1 ? ' wurde' : 'n wurden'} übersprungen: Das Zeitlimit des Scans ließ keinen Raum mehr.`,
  browserPartial:
    'Die Seite wurde nicht rechtzeitig fertig geladen; die Ergebnisse zeigen, was sie bis dahin getan hat.',
  browserIncomplete: (detail) => `Einige Seitendaten konnten nicht gelesen werden: ${detail}`,
  browserFailed: (timedOut, detail) =>
    `Der Browser-Schritt ${timedOut ? 'hat das Zeitlimit überschritten' : 'ist fehlgeschlagen'}: ${detail}. Die Ergebnisse stammen nur aus dem HTML.`,
  pagespeedNoTime: 'Für die Performance-Messung blieb keine Zeit.',
  pagespeed: (detail) => `Performance-Messung: ${detail}`,
  aiFallback: (detail) =>
    detail
      ? `Das Sprachmodell konnte die Zusammenfassung nicht schreiben (${detail}); der eingebaute Text wurde verwendet.`
      : 'Für das Sprachmodell blieb keine Zeit; der eingebaute Text wurde verwendet.',
};
