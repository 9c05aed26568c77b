import type { LossAssumptions } from './loss.ts';
import type { Language, LossEstimate } from './schema.ts';

/**
 * Every human-readable text of a scan result, in the eight supported languages.
 * Texts are built from findings only; numbers are formatted with the language's decimal separator.
 */

type LossFigure = NonNullable<LossEstimate['analytics_events']>;

export interface SummaryFacts {
  host: string;
  trackers: string[];
  tagManagers: string[];
  cmp: string | null;
  bannerDetected: boolean | null;
  googleTags: boolean;
  consentMode: { detected: boolean; version: string | null; mode: string | null; analytics: string | null; ads: string | null };
  /** null when firing could not be observed (no browser stage). */
  beforeConsent: { names: string[]; cookielessNames: string[] } | null;
  serverSide: { detected: boolean; endpoints: string[] };
  loss: { analytics: LossFigure | null; ads: LossFigure | null };
  pagespeed: { score: number; lcpMs: number; tbtMs: number; cls: number } | null;
  universalAnalytics: boolean;
  metaPixelClientOnly: boolean;
  siteDomain: string;
}

interface Texts {
  decimal: string;
  list: (items: string[]) => string;
  trackers: (host: string, names: string[]) => string;
  tagManagers: (names: string[]) => string;
  cmp: (name: string) => string;
  noCmp: (banner: boolean | null) => string;
  consentMode: (version: string, mode: string | null, analytics: string | null, ads: string | null) => string;
  noConsentMode: string;
  beforeConsent: (names: string[]) => string;
  cookieless: (names: string[]) => string;
  nothingBeforeConsent: string;
  beforeConsentUnknown: string;
  serverSide: (endpoints: string[]) => string;
  noServerSide: string;
  loss: (analytics: string | null, ads: string | null) => string;
  recover: (points: string) => string;
  pagespeed: (score: number, lcp: string, tbt: number, cls: string) => string;
  state: (value: string | null) => string;
  mode: (mode: string) => string;
  rec: {
    addCmp: string;
    blockBeforeConsent: (names: string[]) => string;
    addConsentMode: string;
    upgradeConsentMode: string;
    serverSide: (domain: string, points: string) => string;
    removeUa: string;
    metaCapi: string;
    pagespeed: (score: number) => string;
    noTracking: string;
  };
  lossExplanation: (parts: { analytics: string | null; ads: string | null; consent: boolean; rates: Record<string, string> }) => string;
}

function joiner(and: string) {
  return (items: string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${and} ${items[items.length - 1]}`);
}

const en: Texts = {
  decimal: '.',
  list: joiner('and'),
  trackers: (host, names) =>
    names.length === 0 ? `No trackers were found on ${host}.` : `${names.length} tracker${names.length === 1 ? '' : 's'} found on ${host}: ${en.list(names)}.`,
  tagManagers: (names) => `Tag management: ${en.list(names)}.`,
  cmp: (name) => `Consent management platform: ${name}.`,
  noCmp: (banner) => (banner ? 'No known consent management platform was detected, but a cookie notice is visible.' : 'No consent management platform or cookie banner was detected.'),
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} is in use${mode ? ` in ${en.mode(mode)} mode` : ''} (default: analytics_storage ${en.state(analytics)}, ad_storage ${en.state(ads)}).`,
  noConsentMode: 'Google Consent Mode was not detected although Google tags are present.',
  beforeConsent: (names) => `${names.length} tracker${names.length === 1 ? '' : 's'} sent requests before any consent was given: ${en.list(names)}.`,
  cookieless: (names) => `${en.list(names)} only sent cookieless Consent Mode pings.`,
  nothingBeforeConsent: 'No tracker sent requests before consent.',
  beforeConsentUnknown: 'Whether trackers fire before consent could not be checked because the browser stage did not complete.',
  serverSide: (endpoints) => `Server-side tagging was detected${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'No server-side tagging was detected: tags send data directly to the vendors.',
  loss: (analytics, ads) => {
    const parts = [analytics && `about ${analytics}% of analytics events`, ads && `about ${ads}% of ad conversions`].filter(Boolean) as string[];
    return `Estimated data loss: ${en.list(parts)}.`;
  },
  recover: (points) => `Server-side tagging on a first-party domain could recover about ${points} percentage points.`,
  pagespeed: (score, lcp, tbt, cls) => `Mobile performance score: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'granted' : value === 'denied' ? 'denied' : 'not set'),
  mode: (mode) => (mode === 'advanced' ? 'advanced' : 'basic'),
  rec: {
    addCmp: 'Add a consent management platform and load tracking tags only after visitors consent.',
    blockBeforeConsent: (names) => `Hold back ${en.list(names)} until the visitor consents (CMP script blocking or consent triggers in your tag manager).`,
    addConsentMode: 'Implement Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) through your CMP.',
    upgradeConsentMode: 'Upgrade to Consent Mode v2 by also setting ad_user_data and ad_personalization, required for ad personalisation in the EEA since March 2024.',
    serverSide: (domain, points) => `Move your tags to server-side tagging on a first-party subdomain (e.g. data.${domain}) to recover about ${points} percentage points of lost data.`,
    removeUa: 'Remove Universal Analytics: it stopped processing data in July 2023.',
    metaCapi: 'Send Meta events through the Conversions API in addition to the browser pixel.',
    pagespeed: (score) => `Improve page speed (score ${score}/100): load tags asynchronously and defer the ones not needed for the first view.`,
    noTracking: 'No tracking was found: if you expect analytics or ad tags here, check that they are published.',
  },
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      `Per tracker, the share of data kept is (1 − consent loss) × (1 − blocker loss) × (1 − ITP loss).`,
      consent
        ? `A consent banner was found, so ${rates.consent}% of visitors are assumed to refuse consent.`
        : 'No consent mechanism was found, so no consent loss is counted (tags may then run without the consent the law requires).',
      `Ad blockers are active on ${rates.blockers}% of page views; ${rates.analyticsBlock}% of them also block analytics and ${rates.adBlock}% block ad pixels. Tags served from the site's own domain avoid ${rates.escape}% of that blocking.`,
      `Safari (${rates.safari}% of traffic) drops ${rates.itp}% of its ad conversions because script-set cookies expire after 7 days; a first-party tagging server recovers ${rates.itpRecovery}% of that.`,
      analytics || ads ? `Result: ${en.list([analytics && `${analytics}% of analytics events`, ads && `${ads}% of ad conversions`].filter(Boolean) as string[])} lost.` : 'No measuring trackers were found, so there is nothing to lose.',
      'Consent refusal cannot and should not be recovered by server-side tagging.',
    ].join(' '),
};

const de: Texts = {
  decimal: ',',
  list: joiner('und'),
  trackers: (host, names) => (names.length === 0 ? `Auf ${host} wurden keine Tracker gefunden.` : `${names.length} Tracker auf ${host} gefunden: ${de.list(names)}.`),
  tagManagers: (names) => `Tag-Management: ${de.list(names)}.`,
  cmp: (name) => `Consent-Management-Plattform: ${name}.`,
  noCmp: (banner) => (banner ? 'Keine bekannte Consent-Management-Plattform erkannt, aber ein Cookie-Hinweis ist sichtbar.' : 'Weder eine Consent-Management-Plattform noch ein Cookie-Banner wurde erkannt.'),
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} ist aktiv${mode ? ` im ${de.mode(mode)} Modus` : ''} (Standard: analytics_storage ${de.state(analytics)}, ad_storage ${de.state(ads)}).`,
  noConsentMode: 'Google Consent Mode wurde nicht erkannt, obwohl Google-Tags vorhanden sind.',
  beforeConsent: (names) => `${names.length} Tracker ${names.length === 1 ? 'hat' : 'haben'} vor jeder Einwilligung Anfragen gesendet: ${de.list(names)}.`,
  cookieless: (names) => `${de.list(names)} ${names.length === 1 ? 'hat' : 'haben'} nur cookielose Consent-Mode-Pings gesendet.`,
  nothingBeforeConsent: 'Kein Tracker hat vor der Einwilligung Anfragen gesendet.',
  beforeConsentUnknown: 'Ob Tracker vor der Einwilligung auslösen, konnte nicht geprüft werden, weil die Browser-Phase nicht abgeschlossen wurde.',
  serverSide: (endpoints) => `Serverseitiges Tagging wurde erkannt${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'Kein serverseitiges Tagging erkannt: Die Tags senden Daten direkt an die Anbieter.',
  loss: (analytics, ads) => {
    const parts = [analytics && `etwa ${analytics} % der Analytics-Ereignisse`, ads && `etwa ${ads} % der Werbe-Conversions`].filter(Boolean) as string[];
    return `Geschätzter Datenverlust: ${de.list(parts)}.`;
  },
  recover: (points) => `Serverseitiges Tagging auf einer First-Party-Domain könnte etwa ${points} Prozentpunkte zurückgewinnen.`,
  pagespeed: (score, lcp, tbt, cls) => `Mobile Performance-Bewertung: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'erteilt' : value === 'denied' ? 'abgelehnt' : 'nicht gesetzt'),
  mode: (mode) => (mode === 'advanced' ? 'erweiterten' : 'einfachen'),
  rec: {
    addCmp: 'Führen Sie eine Consent-Management-Plattform ein und laden Sie Tracking-Tags erst nach der Einwilligung.',
    blockBeforeConsent: (names) => `Halten Sie ${de.list(names)} bis zur Einwilligung zurück (Skript-Blockierung der CMP oder Consent-Trigger im Tag Manager).`,
    addConsentMode: 'Implementieren Sie Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) über Ihre CMP.',
    upgradeConsentMode: 'Stellen Sie auf Consent Mode v2 um und setzen Sie zusätzlich ad_user_data und ad_personalization, die seit März 2024 im EWR für personalisierte Werbung nötig sind.',
    serverSide: (domain, points) => `Verlagern Sie Ihre Tags auf serverseitiges Tagging unter einer eigenen Subdomain (z. B. data.${domain}), um etwa ${points} Prozentpunkte verlorener Daten zurückzugewinnen.`,
    removeUa: 'Entfernen Sie Universal Analytics: Es verarbeitet seit Juli 2023 keine Daten mehr.',
    metaCapi: 'Senden Sie Meta-Ereignisse zusätzlich zum Browser-Pixel über die Conversions API.',
    pagespeed: (score) => `Verbessern Sie die Ladegeschwindigkeit (Bewertung ${score}/100): Tags asynchron laden und nicht sofort benötigte verzögern.`,
    noTracking: 'Es wurde kein Tracking gefunden: Falls Sie hier Analytics- oder Werbe-Tags erwarten, prüfen Sie, ob sie veröffentlicht sind.',
  },
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Pro Tracker ist der erhaltene Datenanteil (1 − Consent-Verlust) × (1 − Blocker-Verlust) × (1 − ITP-Verlust).',
      consent
        ? `Es wurde ein Consent-Banner gefunden; angenommen wird, dass ${rates.consent} % der Besucher die Einwilligung verweigern.`
        : 'Es wurde kein Einwilligungsmechanismus gefunden, daher wird kein Consent-Verlust gezählt (die Tags laufen dann womöglich ohne die gesetzlich nötige Einwilligung).',
      `Werbeblocker sind bei ${rates.blockers} % der Seitenaufrufe aktiv; ${rates.analyticsBlock} % davon blockieren auch Analytics und ${rates.adBlock} % Werbepixel. Tags von der eigenen Domain entgehen ${rates.escape} % dieser Blockierung.`,
      `Safari (${rates.safari} % des Traffics) verliert ${rates.itp} % seiner Werbe-Conversions, weil per Skript gesetzte Cookies nach 7 Tagen ablaufen; ein First-Party-Tagging-Server gewinnt ${rates.itpRecovery} % davon zurück.`,
      analytics || ads ? `Ergebnis: ${de.list([analytics && `${analytics} % der Analytics-Ereignisse`, ads && `${ads} % der Werbe-Conversions`].filter(Boolean) as string[])} gehen verloren.` : 'Es wurden keine messenden Tracker gefunden, daher gibt es keinen Verlust.',
      'Verweigerte Einwilligungen können und sollen durch serverseitiges Tagging nicht zurückgewonnen werden.',
    ].join(' '),
};

const fr: Texts = {
  decimal: ',',
  list: joiner('et'),
  trackers: (host, names) =>
    names.length === 0 ? `Aucun traceur n'a été trouvé sur ${host}.` : `${names.length} traceur${names.length === 1 ? '' : 's'} trouvé${names.length === 1 ? '' : 's'} sur ${host} : ${fr.list(names)}.`,
  tagManagers: (names) => `Gestion des balises : ${fr.list(names)}.`,
  cmp: (name) => `Plateforme de gestion du consentement : ${name}.`,
  noCmp: (banner) =>
    banner ? "Aucune plateforme de gestion du consentement connue n'a été détectée, mais un bandeau cookies est visible." : "Aucune plateforme de gestion du consentement ni bandeau cookies n'a été détecté.",
  consentMode: (version, mode, analytics, ads) =>
    `Le mode de consentement Google ${version} est actif${mode ? ` en mode ${fr.mode(mode)}` : ''} (par défaut : analytics_storage ${fr.state(analytics)}, ad_storage ${fr.state(ads)}).`,
  noConsentMode: "Le mode de consentement Google n'a pas été détecté alors que des balises Google sont présentes.",
  beforeConsent: (names) =>
    `${names.length} traceur${names.length === 1 ? ' a' : 's ont'} envoyé des requêtes avant tout consentement : ${fr.list(names)}.`,
  cookieless: (names) => `${fr.list(names)} n'${names.length === 1 ? 'a' : 'ont'} envoyé que des pings sans cookie du mode de consentement.`,
  nothingBeforeConsent: "Aucun traceur n'a envoyé de requête avant le consentement.",
  beforeConsentUnknown: "Impossible de vérifier si des traceurs se déclenchent avant le consentement : l'étape navigateur n'a pas abouti.",
  serverSide: (endpoints) => `Un marquage côté serveur a été détecté${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: "Aucun marquage côté serveur n'a été détecté : les balises envoient les données directement aux fournisseurs.",
  loss: (analytics, ads) => {
    const parts = [analytics && `environ ${analytics} % des événements analytics`, ads && `environ ${ads} % des conversions publicitaires`].filter(Boolean) as string[];
    return `Perte de données estimée : ${fr.list(parts)}.`;
  },
  recover: (points) => `Un marquage côté serveur sur un domaine propre (first-party) permettrait de récupérer environ ${points} points de pourcentage.`,
  pagespeed: (score, lcp, tbt, cls) => `Score de performance mobile : ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'accordé' : value === 'denied' ? 'refusé' : 'non défini'),
  mode: (mode) => (mode === 'advanced' ? 'avancé' : 'de base'),
  rec: {
    addCmp: 'Mettez en place une plateforme de gestion du consentement et ne chargez les balises de suivi qu’après le consentement des visiteurs.',
    blockBeforeConsent: (names) => `Bloquez ${fr.list(names)} jusqu’au consentement du visiteur (blocage de scripts par la CMP ou déclencheurs de consentement dans votre gestionnaire de balises).`,
    addConsentMode: 'Mettez en œuvre le mode de consentement Google v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) via votre CMP.',
    upgradeConsentMode: 'Passez au mode de consentement v2 en définissant aussi ad_user_data et ad_personalization, requis pour la publicité personnalisée dans l’EEE depuis mars 2024.',
    serverSide: (domain, points) => `Passez au marquage côté serveur sur un sous-domaine propre (par ex. data.${domain}) pour récupérer environ ${points} points de pourcentage de données perdues.`,
    removeUa: 'Supprimez Universal Analytics : il ne traite plus de données depuis juillet 2023.',
    metaCapi: 'Envoyez les événements Meta via l’API Conversions en plus du pixel navigateur.',
    pagespeed: (score) => `Améliorez la vitesse de la page (score ${score}/100) : chargez les balises de manière asynchrone et différez celles qui ne sont pas nécessaires à l’affichage initial.`,
    noTracking: 'Aucun suivi n’a été trouvé : si vous attendez ici des balises analytics ou publicitaires, vérifiez qu’elles sont publiées.',
  },
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Pour chaque traceur, la part de données conservée vaut (1 − perte liée au consentement) × (1 − perte liée aux bloqueurs) × (1 − perte liée à ITP).',
      consent
        ? `Un bandeau de consentement a été trouvé : on suppose que ${rates.consent} % des visiteurs refusent.`
        : 'Aucun mécanisme de consentement n’a été trouvé : aucune perte liée au consentement n’est comptée (les balises fonctionnent alors peut-être sans le consentement exigé par la loi).',
      `Les bloqueurs de publicité sont actifs sur ${rates.blockers} % des pages vues ; ${rates.analyticsBlock} % d’entre eux bloquent aussi l’analytics et ${rates.adBlock} % les pixels publicitaires. Les balises servies depuis le domaine du site évitent ${rates.escape} % de ce blocage.`,
      `Safari (${rates.safari} % du trafic) perd ${rates.itp} % de ses conversions publicitaires car les cookies posés par script expirent après 7 jours ; un serveur de marquage first-party en récupère ${rates.itpRecovery} %.`,
      analytics || ads ? `Résultat : ${fr.list([analytics && `${analytics} % des événements analytics`, ads && `${ads} % des conversions publicitaires`].filter(Boolean) as string[])} perdus.` : 'Aucun traceur de mesure n’a été trouvé : rien n’est perdu.',
      'Les refus de consentement ne peuvent ni ne doivent être récupérés par le marquage côté serveur.',
    ].join(' '),
};

const es: Texts = {
  decimal: ',',
  list: joiner('y'),
  trackers: (host, names) =>
    names.length === 0 ? `No se encontraron rastreadores en ${host}.` : `Se encontr${names.length === 1 ? 'ó' : 'aron'} ${names.length} rastreador${names.length === 1 ? '' : 'es'} en ${host}: ${es.list(names)}.`,
  tagManagers: (names) => `Gestión de etiquetas: ${es.list(names)}.`,
  cmp: (name) => `Plataforma de gestión del consentimiento: ${name}.`,
  noCmp: (banner) =>
    banner ? 'No se detectó ninguna plataforma de gestión del consentimiento conocida, pero hay un aviso de cookies visible.' : 'No se detectó ninguna plataforma de gestión del consentimiento ni banner de cookies.',
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} está activo${mode ? ` en modo ${es.mode(mode)}` : ''} (por defecto: analytics_storage ${es.state(analytics)}, ad_storage ${es.state(ads)}).`,
  noConsentMode: 'No se detectó Google Consent Mode aunque hay etiquetas de Google.',
  beforeConsent: (names) => `${names.length} rastreador${names.length === 1 ? ' envió' : 'es enviaron'} solicitudes antes de cualquier consentimiento: ${es.list(names)}.`,
  cookieless: (names) => `${es.list(names)} solo envi${names.length === 1 ? 'ó' : 'aron'} pings de Consent Mode sin cookies.`,
  nothingBeforeConsent: 'Ningún rastreador envió solicitudes antes del consentimiento.',
  beforeConsentUnknown: 'No se pudo comprobar si los rastreadores se activan antes del consentimiento porque la fase del navegador no terminó.',
  serverSide: (endpoints) => `Se detectó etiquetado del lado del servidor${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'No se detectó etiquetado del lado del servidor: las etiquetas envían los datos directamente a los proveedores.',
  loss: (analytics, ads) => {
    const parts = [analytics && `alrededor del ${analytics} % de los eventos de analítica`, ads && `alrededor del ${ads} % de las conversiones publicitarias`].filter(Boolean) as string[];
    return `Pérdida de datos estimada: ${es.list(parts)}.`;
  },
  recover: (points) => `El etiquetado del lado del servidor en un dominio propio podría recuperar unos ${points} puntos porcentuales.`,
  pagespeed: (score, lcp, tbt, cls) => `Puntuación de rendimiento móvil: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'concedido' : value === 'denied' ? 'denegado' : 'sin definir'),
  mode: (mode) => (mode === 'advanced' ? 'avanzado' : 'básico'),
  rec: {
    addCmp: 'Añada una plataforma de gestión del consentimiento y cargue las etiquetas de seguimiento solo tras el consentimiento.',
    blockBeforeConsent: (names) => `Retenga ${es.list(names)} hasta que el visitante dé su consentimiento (bloqueo de scripts de la CMP o activadores de consentimiento en su gestor de etiquetas).`,
    addConsentMode: 'Implemente Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) a través de su CMP.',
    upgradeConsentMode: 'Actualice a Consent Mode v2 definiendo también ad_user_data y ad_personalization, obligatorios para publicidad personalizada en el EEE desde marzo de 2024.',
    serverSide: (domain, points) => `Traslade sus etiquetas a etiquetado del lado del servidor en un subdominio propio (p. ej. data.${domain}) para recuperar unos ${points} puntos porcentuales de datos perdidos.`,
    removeUa: 'Elimine Universal Analytics: dejó de procesar datos en julio de 2023.',
    metaCapi: 'Envíe los eventos de Meta también mediante la API de Conversiones, además del píxel del navegador.',
    pagespeed: (score) => `Mejore la velocidad de la página (puntuación ${score}/100): cargue las etiquetas de forma asíncrona y aplace las que no se necesitan en la primera vista.`,
    noTracking: 'No se encontró seguimiento: si espera etiquetas de analítica o publicidad aquí, compruebe que estén publicadas.',
  },
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Por rastreador, la parte de datos conservada es (1 − pérdida por consentimiento) × (1 − pérdida por bloqueadores) × (1 − pérdida por ITP).',
      consent
        ? `Se encontró un banner de consentimiento: se supone que el ${rates.consent} % de los visitantes lo rechaza.`
        : 'No se encontró ningún mecanismo de consentimiento, así que no se cuenta pérdida por consentimiento (las etiquetas quizá funcionen sin el consentimiento que exige la ley).',
      `Los bloqueadores de anuncios están activos en el ${rates.blockers} % de las páginas vistas; el ${rates.analyticsBlock} % de ellos también bloquea la analítica y el ${rates.adBlock} % los píxeles publicitarios. Las etiquetas servidas desde el dominio del sitio evitan el ${rates.escape} % de ese bloqueo.`,
      `Safari (${rates.safari} % del tráfico) pierde el ${rates.itp} % de sus conversiones publicitarias porque las cookies creadas por script caducan a los 7 días; un servidor de etiquetado propio recupera el ${rates.itpRecovery} %.`,
      analytics || ads ? `Resultado: se pierde ${es.list([analytics && `el ${analytics} % de los eventos de analítica`, ads && `el ${ads} % de las conversiones publicitarias`].filter(Boolean) as string[])}.` : 'No se encontraron rastreadores de medición, así que no hay pérdida.',
      'Los rechazos de consentimiento no pueden ni deben recuperarse con etiquetado del lado del servidor.',
    ].join(' '),
};

const it: Texts = {
  decimal: ',',
  list: joiner('e'),
  trackers: (host, names) =>
    names.length === 0 ? `Nessun tracker trovato su ${host}.` : `${names.length === 1 ? 'Trovato 1 tracker' : `Trovati ${names.length} tracker`} su ${host}: ${it.list(names)}.`,
  tagManagers: (names) => `Gestione dei tag: ${it.list(names)}.`,
  cmp: (name) => `Piattaforma di gestione del consenso: ${name}.`,
  noCmp: (banner) =>
    banner ? 'Nessuna piattaforma di gestione del consenso nota rilevata, ma è visibile un avviso sui cookie.' : 'Non è stata rilevata alcuna piattaforma di gestione del consenso né un banner dei cookie.',
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} è attivo${mode ? ` in modalità ${it.mode(mode)}` : ''} (predefinito: analytics_storage ${it.state(analytics)}, ad_storage ${it.state(ads)}).`,
  noConsentMode: 'Google Consent Mode non è stato rilevato, nonostante siano presenti tag Google.',
  beforeConsent: (names) => `${names.length} tracker ${names.length === 1 ? 'ha' : 'hanno'} inviato richieste prima di qualsiasi consenso: ${it.list(names)}.`,
  cookieless: (names) => `${it.list(names)} ${names.length === 1 ? 'ha' : 'hanno'} inviato solo ping di Consent Mode senza cookie.`,
  nothingBeforeConsent: 'Nessun tracker ha inviato richieste prima del consenso.',
  beforeConsentUnknown: 'Non è stato possibile verificare se i tracker si attivano prima del consenso perché la fase del browser non è stata completata.',
  serverSide: (endpoints) => `È stato rilevato il tagging lato server${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'Nessun tagging lato server rilevato: i tag inviano i dati direttamente ai fornitori.',
  loss: (analytics, ads) => {
    const parts = [analytics && `circa il ${analytics} % degli eventi di analytics`, ads && `circa il ${ads} % delle conversioni pubblicitarie`].filter(Boolean) as string[];
    return `Perdita di dati stimata: ${it.list(parts)}.`;
  },
  recover: (points) => `Il tagging lato server su un dominio proprio potrebbe recuperare circa ${points} punti percentuali.`,
  pagespeed: (score, lcp, tbt, cls) => `Punteggio di prestazioni mobile: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'concesso' : value === 'denied' ? 'negato' : 'non impostato'),
  mode: (mode) => (mode === 'advanced' ? 'avanzata' : 'base'),
  rec: {
    addCmp: 'Adottate una piattaforma di gestione del consenso e caricate i tag di tracciamento solo dopo il consenso dei visitatori.',
    blockBeforeConsent: (names) => `Bloccate ${it.list(names)} fino al consenso del visitatore (blocco degli script della CMP o trigger di consenso nel tag manager).`,
    addConsentMode: 'Implementate Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) tramite la vostra CMP.',
    upgradeConsentMode: 'Passate a Consent Mode v2 impostando anche ad_user_data e ad_personalization, necessari per la pubblicità personalizzata nel SEE da marzo 2024.',
    serverSide: (domain, points) => `Spostate i tag sul tagging lato server in un sottodominio proprio (ad es. data.${domain}) per recuperare circa ${points} punti percentuali di dati persi.`,
    removeUa: 'Rimuovete Universal Analytics: non elabora più dati da luglio 2023.',
    metaCapi: 'Inviate gli eventi Meta anche tramite l’API Conversions, oltre al pixel del browser.',
    pagespeed: (score) => `Migliorate la velocità della pagina (punteggio ${score}/100): caricate i tag in modo asincrono e rinviate quelli non necessari alla prima visualizzazione.`,
    noTracking: 'Nessun tracciamento trovato: se vi aspettate tag di analytics o pubblicitari, verificate che siano pubblicati.',
  },
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Per ogni tracker la quota di dati conservata è (1 − perdita da consenso) × (1 − perdita da blocchi) × (1 − perdita da ITP).',
      consent
        ? `È stato trovato un banner del consenso: si presume che il ${rates.consent} % dei visitatori rifiuti.`
        : 'Non è stato trovato alcun meccanismo di consenso, quindi non si conta alcuna perdita da consenso (i tag potrebbero funzionare senza il consenso richiesto dalla legge).',
      `Gli ad blocker sono attivi sul ${rates.blockers} % delle pagine viste; il ${rates.analyticsBlock} % di essi blocca anche gli analytics e il ${rates.adBlock} % i pixel pubblicitari. I tag serviti dal dominio del sito evitano il ${rates.escape} % di questo blocco.`,
      `Safari (${rates.safari} % del traffico) perde il ${rates.itp} % delle conversioni pubblicitarie perché i cookie impostati via script scadono dopo 7 giorni; un server di tagging first-party ne recupera il ${rates.itpRecovery} %.`,
      analytics || ads ? `Risultato: si perde ${it.list([analytics && `il ${analytics} % degli eventi di analytics`, ads && `il ${ads} % delle conversioni pubblicitarie`].filter(Boolean) as string[])}.` : 'Non sono stati trovati tracker di misurazione, quindi non c’è perdita.',
      'I consensi rifiutati non possono né devono essere recuperati con il tagging lato server.',
    ].join(' '),
};

const nl: Texts = {
  decimal: ',',
  list: joiner('en'),
  trackers: (host, names) => (names.length === 0 ? `Er zijn geen trackers gevonden op ${host}.` : `${names.length} tracker${names.length === 1 ? '' : 's'} gevonden op ${host}: ${nl.list(names)}.`),
  tagManagers: (names) => `Tagbeheer: ${nl.list(names)}.`,
  cmp: (name) => `Consentmanagementplatform: ${name}.`,
  noCmp: (banner) => (banner ? 'Er is geen bekend consentmanagementplatform gevonden, maar er is een cookiemelding zichtbaar.' : 'Er is geen consentmanagementplatform of cookiebanner gevonden.'),
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} is actief${mode ? ` in de ${nl.mode(mode)} modus` : ''} (standaard: analytics_storage ${nl.state(analytics)}, ad_storage ${nl.state(ads)}).`,
  noConsentMode: 'Google Consent Mode is niet gevonden, hoewel er Google-tags aanwezig zijn.',
  beforeConsent: (names) => `${names.length} tracker${names.length === 1 ? ' stuurde' : 's stuurden'} verzoeken vóór enige toestemming: ${nl.list(names)}.`,
  cookieless: (names) => `${nl.list(names)} stuurde${names.length === 1 ? '' : 'n'} alleen cookieloze Consent Mode-pings.`,
  nothingBeforeConsent: 'Geen enkele tracker stuurde verzoeken vóór toestemming.',
  beforeConsentUnknown: 'Of trackers vóór toestemming afgaan, kon niet worden gecontroleerd omdat de browserfase niet is voltooid.',
  serverSide: (endpoints) => `Server-side tagging gevonden${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'Geen server-side tagging gevonden: tags sturen gegevens rechtstreeks naar de leveranciers.',
  loss: (analytics, ads) => {
    const parts = [analytics && `ongeveer ${analytics}% van de analytics-events`, ads && `ongeveer ${ads}% van de advertentieconversies`].filter(Boolean) as string[];
    return `Geschat gegevensverlies: ${nl.list(parts)}.`;
  },
  recover: (points) => `Server-side tagging op een eigen (first-party) domein kan ongeveer ${points} procentpunt terugwinnen.`,
  pagespeed: (score, lcp, tbt, cls) => `Mobiele prestatiescore: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'verleend' : value === 'denied' ? 'geweigerd' : 'niet ingesteld'),
  mode: (mode) => (mode === 'advanced' ? 'geavanceerde' : 'basis'),
  rec: {
    addCmp: 'Voeg een consentmanagementplatform toe en laad trackingtags pas na toestemming van de bezoeker.',
    blockBeforeConsent: (names) => `Houd ${nl.list(names)} tegen tot de bezoeker toestemming geeft (scriptblokkering van het CMP of consent-triggers in uw tagmanager).`,
    addConsentMode: 'Implementeer Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) via uw CMP.',
    upgradeConsentMode: 'Stap over op Consent Mode v2 door ook ad_user_data en ad_personalization in te stellen, sinds maart 2024 vereist voor gepersonaliseerde advertenties in de EER.',
    serverSide: (domain, points) => `Verplaats uw tags naar server-side tagging op een eigen subdomein (bijv. data.${domain}) om ongeveer ${points} procentpunt aan verloren gegevens terug te winnen.`,
    removeUa: 'Verwijder Universal Analytics: het verwerkt sinds juli 2023 geen gegevens meer.',
    metaCapi: 'Stuur Meta-events naast de browserpixel ook via de Conversions API.',
    pagespeed: (score) => `Verbeter de paginasnelheid (score ${score}/100): laad tags asynchroon en stel tags uit die niet nodig zijn voor de eerste weergave.`,
    noTracking: 'Er is geen tracking gevonden: verwacht u hier analytics- of advertentietags, controleer dan of ze gepubliceerd zijn.',
  },
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Per tracker is het behouden deel van de gegevens (1 − verlies door toestemming) × (1 − verlies door blockers) × (1 − verlies door ITP).',
      consent
        ? `Er is een toestemmingsbanner gevonden; we nemen aan dat ${rates.consent}% van de bezoekers weigert.`
        : 'Er is geen toestemmingsmechanisme gevonden, dus er wordt geen verlies door toestemming geteld (de tags draaien dan mogelijk zonder de wettelijk vereiste toestemming).',
      `Adblockers zijn actief bij ${rates.blockers}% van de paginaweergaven; ${rates.analyticsBlock}% daarvan blokkeert ook analytics en ${rates.adBlock}% advertentiepixels. Tags vanaf het eigen domein van de site ontlopen ${rates.escape}% van die blokkering.`,
      `Safari (${rates.safari}% van het verkeer) verliest ${rates.itp}% van zijn advertentieconversies omdat via script gezette cookies na 7 dagen verlopen; een first-party taggingserver wint daarvan ${rates.itpRecovery}% terug.`,
      analytics || ads ? `Resultaat: ${nl.list([analytics && `${analytics}% van de analytics-events`, ads && `${ads}% van de advertentieconversies`].filter(Boolean) as string[])} gaat verloren.` : 'Er zijn geen meettrackers gevonden, dus er gaat niets verloren.',
      'Geweigerde toestemming kan en mag niet met server-side tagging worden teruggewonnen.',
    ].join(' '),
};

const pt: Texts = {
  decimal: ',',
  list: joiner('e'),
  trackers: (host, names) =>
    names.length === 0 ? `Não foram encontrados rastreadores em ${host}.` : `${names.length === 1 ? 'Foi encontrado 1 rastreador' : `Foram encontrados ${names.length} rastreadores`} em ${host}: ${pt.list(names)}.`,
  tagManagers: (names) => `Gestão de tags: ${pt.list(names)}.`,
  cmp: (name) => `Plataforma de gestão de consentimento: ${name}.`,
  noCmp: (banner) =>
    banner ? 'Não foi detetada nenhuma plataforma de gestão de consentimento conhecida, mas há um aviso de cookies visível.' : 'Não foi detetada nenhuma plataforma de gestão de consentimento nem banner de cookies.',
  consentMode: (version, mode, analytics, ads) =>
    `O Google Consent Mode ${version} está ativo${mode ? ` no modo ${pt.mode(mode)}` : ''} (predefinição: analytics_storage ${pt.state(analytics)}, ad_storage ${pt.state(ads)}).`,
  noConsentMode: 'O Google Consent Mode não foi detetado, embora existam tags da Google.',
  beforeConsent: (names) => `${names.length} rastreador${names.length === 1 ? ' enviou' : 'es enviaram'} pedidos antes de qualquer consentimento: ${pt.list(names)}.`,
  cookieless: (names) => `${pt.list(names)} só envi${names.length === 1 ? 'ou' : 'aram'} pings do Consent Mode sem cookies.`,
  nothingBeforeConsent: 'Nenhum rastreador enviou pedidos antes do consentimento.',
  beforeConsentUnknown: 'Não foi possível verificar se os rastreadores disparam antes do consentimento porque a fase do navegador não terminou.',
  serverSide: (endpoints) => `Foi detetado tagging do lado do servidor${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'Não foi detetado tagging do lado do servidor: as tags enviam dados diretamente aos fornecedores.',
  loss: (analytics, ads) => {
    const parts = [analytics && `cerca de ${analytics} % dos eventos de analytics`, ads && `cerca de ${ads} % das conversões de anúncios`].filter(Boolean) as string[];
    return `Perda de dados estimada: ${pt.list(parts)}.`;
  },
  recover: (points) => `O tagging do lado do servidor num domínio próprio poderia recuperar cerca de ${points} pontos percentuais.`,
  pagespeed: (score, lcp, tbt, cls) => `Pontuação de desempenho móvel: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'concedido' : value === 'denied' ? 'negado' : 'não definido'),
  mode: (mode) => (mode === 'advanced' ? 'avançado' : 'básico'),
  rec: {
    addCmp: 'Adicione uma plataforma de gestão de consentimento e carregue as tags de rastreio apenas após o consentimento dos visitantes.',
    blockBeforeConsent: (names) => `Retenha ${pt.list(names)} até o visitante dar consentimento (bloqueio de scripts da CMP ou acionadores de consentimento no gestor de tags).`,
    addConsentMode: 'Implemente o Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) através da sua CMP.',
    upgradeConsentMode: 'Atualize para o Consent Mode v2 definindo também ad_user_data e ad_personalization, obrigatórios para publicidade personalizada no EEE desde março de 2024.',
    serverSide: (domain, points) => `Passe as suas tags para tagging do lado do servidor num subdomínio próprio (p. ex. data.${domain}) para recuperar cerca de ${points} pontos percentuais de dados perdidos.`,
    removeUa: 'Remova o Universal Analytics: deixou de processar dados em julho de 2023.',
    metaCapi: 'Envie os eventos da Meta também através da API de Conversões, além do pixel do navegador.',
    pagespeed: (score) => `Melhore a velocidade da página (pontuação ${score}/100): carregue as tags de forma assíncrona e adie as que não são necessárias na primeira visualização.`,
    noTracking: 'Não foi encontrado rastreio: se espera tags de analytics ou de anúncios aqui, verifique se estão publicadas.',
  },
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Por rastreador, a parte dos dados mantida é (1 − perda por consentimento) × (1 − perda por bloqueadores) × (1 − perda por ITP).',
      consent
        ? `Foi encontrado um banner de consentimento: assume-se que ${rates.consent} % dos visitantes recusam.`
        : 'Não foi encontrado nenhum mecanismo de consentimento, por isso não se conta perda por consentimento (as tags podem estar a funcionar sem o consentimento exigido por lei).',
      `Os bloqueadores de anúncios estão ativos em ${rates.blockers} % das visualizações de página; ${rates.analyticsBlock} % deles também bloqueiam analytics e ${rates.adBlock} % os píxeis de anúncios. As tags servidas a partir do domínio do site evitam ${rates.escape} % desse bloqueio.`,
      `O Safari (${rates.safari} % do tráfego) perde ${rates.itp} % das conversões de anúncios porque os cookies criados por script expiram após 7 dias; um servidor de tagging próprio recupera ${rates.itpRecovery} % disso.`,
      analytics || ads ? `Resultado: perdem-se ${pt.list([analytics && `${analytics} % dos eventos de analytics`, ads && `${ads} % das conversões de anúncios`].filter(Boolean) as string[])}.` : 'Não foram encontrados rastreadores de medição, por isso não há perda.',
      'As recusas de consentimento não podem nem devem ser recuperadas com tagging do lado do servidor.',
    ].join(' '),
};

/** Polish plural: 1 → one, 2–4 (not 12–14) → few, else many. */
function plPlural(count: number, one: string, few: string, many: string): string {
  if (count === 1) return one;
  const lastTwo = count % 100;
  const last = count % 10;
  return last >= 2 && last <= 4 && !(lastTwo >= 12 && lastTwo <= 14) ? few : many;
}

const pl: Texts = {
  decimal: ',',
  list: joiner('i'),
  trackers: (host, names) =>
    names.length === 0
      ? `Na ${host} nie znaleziono żadnych trackerów.`
      : `Na ${host} ${plPlural(names.length, 'znaleziono 1 tracker', `znaleziono ${names.length} trackery`, `znaleziono ${names.length} trackerów`)}: ${pl.list(names)}.`,
  tagManagers: (names) => `Zarządzanie tagami: ${pl.list(names)}.`,
  cmp: (name) => `Platforma do zarządzania zgodami: ${name}.`,
  noCmp: (banner) => (banner ? 'Nie wykryto znanej platformy do zarządzania zgodami, ale widoczny jest komunikat o plikach cookie.' : 'Nie wykryto platformy do zarządzania zgodami ani banera cookie.'),
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} jest aktywny${mode ? ` w trybie ${pl.mode(mode)}` : ''} (domyślnie: analytics_storage ${pl.state(analytics)}, ad_storage ${pl.state(ads)}).`,
  noConsentMode: 'Nie wykryto Google Consent Mode, choć na stronie są tagi Google.',
  beforeConsent: (names) =>
    `${names.length} ${plPlural(names.length, 'tracker wysłał', 'trackery wysłały', 'trackerów wysłało')} żądania przed udzieleniem jakiejkolwiek zgody: ${pl.list(names)}.`,
  cookieless: (names) => `${pl.list(names)} ${names.length === 1 ? 'wysłał' : 'wysłały'} wyłącznie pingi Consent Mode bez plików cookie.`,
  nothingBeforeConsent: 'Żaden tracker nie wysłał żądań przed udzieleniem zgody.',
  beforeConsentUnknown: 'Nie udało się sprawdzić, czy trackery uruchamiają się przed zgodą, ponieważ etap przeglądarki nie został ukończony.',
  serverSide: (endpoints) => `Wykryto tagowanie po stronie serwera${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'Nie wykryto tagowania po stronie serwera: tagi wysyłają dane bezpośrednio do dostawców.',
  loss: (analytics, ads) => {
    const parts = [analytics && `około ${analytics}% zdarzeń analitycznych`, ads && `około ${ads}% konwersji reklamowych`].filter(Boolean) as string[];
    return `Szacowana utrata danych: ${pl.list(parts)}.`;
  },
  recover: (points) => `Tagowanie po stronie serwera we własnej domenie (first-party) mogłoby odzyskać około ${points} punktów procentowych.`,
  pagespeed: (score, lcp, tbt, cls) => `Wynik wydajności mobilnej: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'udzielona' : value === 'denied' ? 'odmówiona' : 'nieustawiona'),
  mode: (mode) => (mode === 'advanced' ? 'zaawansowanym' : 'podstawowym'),
  rec: {
    addCmp: 'Wdróż platformę do zarządzania zgodami i ładuj tagi śledzące dopiero po wyrażeniu zgody przez odwiedzających.',
    blockBeforeConsent: (names) => `Wstrzymaj ${pl.list(names)} do czasu wyrażenia zgody (blokowanie skryptów przez CMP lub reguły zgody w menedżerze tagów).`,
    addConsentMode: 'Wdróż Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) za pomocą swojej platformy CMP.',
    upgradeConsentMode: 'Przejdź na Consent Mode v2, ustawiając także ad_user_data i ad_personalization, wymagane od marca 2024 r. dla reklam spersonalizowanych w EOG.',
    serverSide: (domain, points) => `Przenieś tagi na tagowanie po stronie serwera we własnej subdomenie (np. data.${domain}), aby odzyskać około ${points} punktów procentowych utraconych danych.`,
    removeUa: 'Usuń Universal Analytics: od lipca 2023 r. nie przetwarza już danych.',
    metaCapi: 'Wysyłaj zdarzenia Meta również przez Conversions API, oprócz piksela w przeglądarce.',
    pagespeed: (score) => `Popraw szybkość strony (wynik ${score}/100): ładuj tagi asynchronicznie i opóźniaj te, które nie są potrzebne przy pierwszym wyświetleniu.`,
    noTracking: 'Nie znaleziono śledzenia: jeśli powinny tu działać tagi analityczne lub reklamowe, sprawdź, czy zostały opublikowane.',
  },
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Dla każdego trackera zachowana część danych to (1 − utrata przez brak zgody) × (1 − utrata przez blokery) × (1 − utrata przez ITP).',
      consent
        ? `Znaleziono baner zgody; przyjmujemy, że ${rates.consent}% odwiedzających odmawia zgody.`
        : 'Nie znaleziono mechanizmu zgody, więc nie liczymy utraty z powodu braku zgody (tagi mogą wtedy działać bez wymaganej prawem zgody).',
      `Blokery reklam są aktywne przy ${rates.blockers}% odsłon; ${rates.analyticsBlock}% z nich blokuje też analitykę, a ${rates.adBlock}% piksele reklamowe. Tagi serwowane z domeny witryny unikają ${rates.escape}% tej blokady.`,
      `Safari (${rates.safari}% ruchu) traci ${rates.itp}% konwersji reklamowych, bo pliki cookie ustawiane skryptem wygasają po 7 dniach; własny serwer tagujący odzyskuje ${rates.itpRecovery}% z tego.`,
      analytics || ads ? `Wynik: tracone jest ${pl.list([analytics && `${analytics}% zdarzeń analitycznych`, ads && `${ads}% konwersji reklamowych`].filter(Boolean) as string[])}.` : 'Nie znaleziono trackerów pomiarowych, więc nie ma strat.',
      'Odmowy zgody nie mogą i nie powinny być odzyskiwane przez tagowanie po stronie serwera.',
    ].join(' '),
};

export const TEXTS: Record<Language, Texts> = { en, de, fr, es, it, nl, pt, pl };

/** Formats a number with at most `digits` decimals and the language's decimal separator. */
export function formatNumber(language: Language, value: number, digits = 1): string {
  const factor = 10 ** digits;
  return String(Math.round(value * factor) / factor).replace('.', TEXTS[language].decimal);
}

export function lossExplanation(
  language: Language,
  input: { analytics: LossFigure | null; ads: LossFigure | null; consentApplied: boolean; assumptions: LossAssumptions },
): string {
  const pct = (fraction: number) => formatNumber(language, fraction * 100);
  const A = input.assumptions;
  return TEXTS[language].lossExplanation({
    analytics: input.analytics ? formatNumber(language, input.analytics.lost_pct) : null,
    ads: input.ads ? formatNumber(language, input.ads.lost_pct) : null,
    consent: input.consentApplied,
    rates: {
      consent: pct(A.consent_refusal_rate),
      blockers: pct(A.ad_blocker_rate),
      analyticsBlock: pct(A.blockers_blocking_analytics),
      adBlock: pct(A.blockers_blocking_ad_pixels),
      escape: pct(A.first_party_escape_rate),
      safari: pct(A.safari_share),
      itp: pct(A.itp_conversion_loss),
      itpRecovery: pct(A.itp_server_side_recovery),
    },
  });
}

/** The builtin summary: one paragraph from the findings, and recommendations that follow from them. */
export function composeSummary(language: Language, facts: SummaryFacts): { text: string; recommendations: string[] } {
  const t = TEXTS[language];
  const n = (value: number) => formatNumber(language, value);
  const sentences: string[] = [t.trackers(facts.host, facts.trackers)];
  if (facts.tagManagers.length) sentences.push(t.tagManagers(facts.tagManagers));
  sentences.push(facts.cmp ? t.cmp(facts.cmp) : t.noCmp(facts.bannerDetected));
  if (facts.consentMode.detected && facts.consentMode.version) {
    sentences.push(t.consentMode(facts.consentMode.version, facts.consentMode.mode, facts.consentMode.analytics, facts.consentMode.ads));
  } else if (facts.googleTags) {
    sentences.push(t.noConsentMode);
  }
  if (facts.trackers.length) {
    if (!facts.beforeConsent) sentences.push(t.beforeConsentUnknown);
    else if (facts.beforeConsent.names.length) {
      sentences.push(t.beforeConsent(facts.beforeConsent.names));
      if (facts.beforeConsent.cookielessNames.length) sentences.push(t.cookieless(facts.beforeConsent.cookielessNames));
    } else sentences.push(t.nothingBeforeConsent);
  }
  if (facts.serverSide.detected) sentences.push(t.serverSide(facts.serverSide.endpoints));
  else if (facts.trackers.length) sentences.push(t.noServerSide);
  const { analytics, ads } = facts.loss;
  if (analytics || ads) {
    sentences.push(t.loss(analytics ? n(analytics.lost_pct) : null, ads ? n(ads.lost_pct) : null));
    const recoverable = Math.max(analytics?.recoverable_pct ?? 0, ads?.recoverable_pct ?? 0);
    if (recoverable > 0) sentences.push(t.recover(n(recoverable)));
  }
  if (facts.pagespeed) {
    sentences.push(t.pagespeed(facts.pagespeed.score, formatNumber(language, facts.pagespeed.lcpMs / 1000), Math.round(facts.pagespeed.tbtMs), formatNumber(language, facts.pagespeed.cls, 2)));
  }

  const recommendations: string[] = [];
  const consentMechanism = !!facts.cmp || facts.bannerDetected === true;
  if (facts.trackers.length && !consentMechanism) recommendations.push(t.rec.addCmp);
  const blocking = facts.beforeConsent?.names.filter((name) => !facts.beforeConsent!.cookielessNames.includes(name)) ?? [];
  if (blocking.length) recommendations.push(t.rec.blockBeforeConsent(blocking));
  if (facts.googleTags && !facts.consentMode.detected) recommendations.push(t.rec.addConsentMode);
  if (facts.consentMode.detected && facts.consentMode.version === 'v1') recommendations.push(t.rec.upgradeConsentMode);
  if (facts.universalAnalytics) recommendations.push(t.rec.removeUa);
  const recoverable = Math.max(analytics?.recoverable_pct ?? 0, ads?.recoverable_pct ?? 0);
  if (!facts.serverSide.detected && recoverable > 0) recommendations.push(t.rec.serverSide(facts.siteDomain, n(recoverable)));
  if (facts.metaPixelClientOnly) recommendations.push(t.rec.metaCapi);
  if (facts.pagespeed && facts.pagespeed.score < 50) recommendations.push(t.rec.pagespeed(facts.pagespeed.score));
  if (!facts.trackers.length && !facts.tagManagers.length) recommendations.push(t.rec.noTracking);
  return { text: sentences.join(' '), recommendations };
}
