import { joiner, type SummaryTexts, type WarningTexts } from './texts.js';

export const summary: SummaryTexts = {
  decimal: ',',
  list: joiner('et'),
  trackers: (host, names) =>
    names.length === 0
      ? `Aucun traceur n'a été trouvé sur ${host}.`
      : `${names.length} traceur${names.length === 1 ? '' : 's'} trouvé${names.length === 1 ? '' : 's'} sur ${host} : ${summary.list(names)}.`,
  tagManagers: (names) => `Gestion des balises : ${summary.list(names)}.`,
  onlyTagManagers: (host, names) =>
    `Aucun traceur de mesure n'a été trouvé sur ${host}, seulement de la gestion des balises : ${summary.list(names)}.`,
  cmp: (name) => `Plateforme de gestion du consentement : ${name}.`,
  noCmp: (banner) =>
    banner
      ? "Aucune plateforme de gestion du consentement connue n'a été détectée, mais un bandeau cookies est visible."
      : "Aucune plateforme de gestion du consentement ni bandeau cookies n'a été détecté.",
  noTrackersUnchecked: (host) =>
    `Aucun traceur n'a été trouvé dans le HTML de ${host} ; les traceurs chargés par des scripts n'ont pas pu être vérifiés car l'étape navigateur n'a pas abouti.`,
  noCmpUnchecked:
    "Aucune plateforme de gestion du consentement n'a été trouvée dans le code de la page ; la présence d'un bandeau cookies n'a pas pu être vérifiée car l'étape navigateur n'a pas abouti.",
  noscriptOnly: (names) =>
    `Installé uniquement dans <noscript>, jamais exécuté pour les visiteurs avec JavaScript (installation défaillante, aucune mesure) : ${summary.list(names)}.`,
  referenced: (names) =>
    `Mentionnés dans le code de la page mais jamais chargés ni émetteurs pendant l'analyse, donc non comptés comme traceurs : ${summary.list(names)}.`,
  configuredNotFired: (items) =>
    `Configurés dans le gestionnaire de balises mais non déclenchés pendant l'analyse (l'analyse ne clique jamais, n'envoie aucun formulaire et ne donne aucun consentement) : ${summary.list(items)}.`,
  consentMode: (version, mode, analytics, ads) =>
    `Le mode de consentement Google ${version} est actif${mode ? ` en mode ${summary.mode(mode)}` : ''} (par défaut : analytics_storage ${summary.state(analytics)}, ad_storage ${summary.state(ads)}).`,
  noConsentMode: "Le mode de consentement Google n'a pas été détecté alors que des balises Google sont présentes.",
  beforeConsent: (names) =>
    `${names.length} traceur${names.length === 1 ? ' a' : 's ont'} envoyé des requêtes avant tout consentement : ${summary.list(names)}.`,
  cookieless: (names) =>
    `${summary.list(names)} n'${names.length === 1 ? 'a' : 'ont'} envoyé que des pings sans cookie du mode de consentement.`,
  nothingBeforeConsent: "Aucun traceur n'a envoyé de requête avant le consentement.",
  beforeConsentUnknown:
    "Impossible de vérifier si des traceurs se déclenchent avant le consentement : l'étape navigateur n'a pas abouti.",
  serverSide: (endpoints) =>
    `Un marquage côté serveur a été détecté${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide:
    "Aucun marquage côté serveur n'a été détecté : les balises envoient les données directement aux fournisseurs.",
  loss: (analytics, ads) => {
    const parts = [
      analytics && `environ ${analytics} % des événements analytics`,
      ads && `environ ${ads} % des conversions publicitaires`,
    ].filter(Boolean) as string[];
    return `Perte de données estimée : ${summary.list(parts)}.`;
  },
  recover: (points) =>
    `Un marquage côté serveur sur un domaine propre (first-party) permettrait de récupérer environ ${points} points de pourcentage.`,
  pagespeed: (score, lcp, tbt, cls) =>
    `Score de performance mobile : ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'accordé' : value === 'denied' ? 'refusé' : 'non défini'),
  mode: (mode) => (mode === 'advanced' ? 'avancé' : 'de base'),
  modeExplanation: {
    advanced:
      'Mode avancé : les balises Google se chargent avant le consentement et, tant que le stockage est refusé, envoient des pings sans cookies (aucun cookie lu ni écrit ; Google s’en sert pour modéliser les conversions). Ces pings sont des requêtes antérieures au consentement : les balises qui les envoient comptent comme déclenchées avant le consentement.',
    basic:
      'Mode de base : les balises Google sont retenues jusqu’au consentement du visiteur, rien n’est envoyé à Google avant ; Google modélise les conversions sans aucune donnée des visiteurs qui refusent.',
  },
  rec: {
    consentNeverGranted: `Google Consent Mode refuse le stockage par défaut, mais aucune plateforme ni bandeau de consentement ne permet aux visiteurs de l'accorder : personne ne peut jamais consentir. Ajoutez un bandeau qui envoie gtag('consent', 'update', …) quand le visiteur accepte, ou retirez les valeurs refusées par défaut si le consentement n'est pas requis.`,
    addCmp:
      'Mettez en place une plateforme de gestion du consentement et ne chargez les balises de suivi qu’après le consentement des visiteurs.',
    blockBeforeConsent: (names) =>
      `Bloquez ${summary.list(names)} jusqu’au consentement du visiteur (blocage de scripts par la CMP ou déclencheurs de consentement dans votre gestionnaire de balises).`,
    addConsentMode:
      'Mettez en œuvre le mode de consentement Google v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) via votre CMP.',
    upgradeConsentMode: (keys) =>
      `Passez au mode de consentement v2 en définissant aussi ${summary.list(keys)}, requis pour la publicité personnalisée dans l’EEE depuis mars 2024.`,
    serverSide: (domain, points) =>
      `Passez au marquage côté serveur sur un sous-domaine propre (par ex. data.${domain}) pour récupérer environ ${points} points de pourcentage de données perdues.`,
    removeUa: 'Supprimez Universal Analytics : il ne traite plus de données depuis juillet 2023.',
    fixNoscriptOnly: (names) =>
      `Installez ${summary.list(names)} avec l'extrait JavaScript du fournisseur : une solution de repli <noscript> seule ne s'exécute jamais dans un navigateur avec JavaScript.`,
    metaCapi: 'Envoyez les événements Meta via l’API Conversions en plus du pixel navigateur.',
    pagespeed: (score) =>
      `Améliorez la vitesse de la page (score ${score}/100) : chargez les balises de manière asynchrone et différez celles qui ne sont pas nécessaires à l’affichage initial.`,
    noTracking:
      'Aucun suivi n’a été trouvé : si vous attendez ici des balises analytics ou publicitaires, vérifiez qu’elles sont publiées.',
  },
  neverGrantedLoss: (names) =>
    `Google Consent Mode refuse le stockage par défaut et rien sur la page ne permet de l'accorder : ${summary.list(names)} perd toute la mesure soumise au consentement (comptée comme 100 % de perte de consentement).`,
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Pour chaque traceur, la part de données conservée vaut (1 − perte liée au consentement) × (1 − perte liée aux bloqueurs) × (1 − perte liée à ITP).',
      consent
        ? `Un bandeau de consentement a été trouvé : on suppose que ${rates.consent} % des visiteurs refusent.`
        : 'Aucun mécanisme de consentement n’a été trouvé : aucune perte liée au consentement n’est comptée (les balises fonctionnent alors peut-être sans le consentement exigé par la loi).',
      `Les bloqueurs de publicité sont actifs sur ${rates.blockers} % des pages vues ; ${rates.analyticsBlock} % d’entre eux bloquent aussi l’analytics et ${rates.adBlock} % les pixels publicitaires. Les balises servies depuis le domaine du site évitent ${rates.escape} % de ce blocage.`,
      `Safari (${rates.safari} % du trafic) perd ${rates.itp} % de ses conversions publicitaires car les cookies posés par script expirent après 7 jours ; un serveur de marquage first-party en récupère ${rates.itpRecovery} %.`,
      analytics || ads
        ? `Résultat : ${summary.list([analytics && `${analytics} % des événements analytics`, ads && `${ads} % des conversions publicitaires`].filter(Boolean) as string[])} perdus.`
        : 'Aucun traceur de mesure n’a été trouvé : rien n’est perdu.',
      'Les refus de consentement ne peuvent ni ne doivent être récupérés par le marquage côté serveur.',
    ].join(' '),
};

export const warnings: WarningTexts = {
  refused: (n, example) =>
    `${n} requête(s) vers des adresses non publiques ont été bloquées${example ? `, p. ex. ${example}` : ''}.`,
  consentWithoutInteraction:
    "Une mise à jour du consentement autorisant le stockage a été exécutée alors que le scanner n'a jamais cliqué sur un bandeau de cookies (il fait seulement défiler, bouge le pointeur, appuie sur une touche et touche la page).",
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
  observationCut: (ms) =>
    `La page était encore active quand l'observation s'est arrêtée après ${ms} ms ; les balises plus tardives n'ont pas été vues.`,
  consentRunCut:
    "La vérification du consentement n'a pas pu terminer chaque passage dans le temps imparti (« tout refuser » ou « tout accepter » a été interrompu) ; la comparaison couvre ce qui a été observé jusque-là.",
  pagesFewer: (asked, found) =>
    `Seulement ${found} page${found > 1 ? 's' : ''} interne${found > 1 ? 's' : ''} liée${found > 1 ? 's' : ''} depuis la page de départ pour les ${asked} pages demandées.`,
  pagesSkipped: (count) =>
    `${count} page${count > 1 ? 's ont' : ' a'} été ignorée${count > 1 ? 's' : ''} : la limite de temps de l’analyse ne laissait plus de place.`,
  browserPartial: "La page n'a pas fini de se charger à temps ; les résultats couvrent ce qu'elle a fait jusque-là.",
  browserIncomplete: (detail) => `Certaines données de la page n'ont pas pu être lues : ${detail}`,
  browserFailed: (timedOut, detail) =>
    `L'étape navigateur ${timedOut ? 'a dépassé le délai' : 'a échoué'} : ${detail}. Les résultats proviennent du HTML seul.`,
  pagespeedNoTime: 'Il ne restait pas de temps pour la mesure de performance.',
  pagespeed: (detail) => `Mesure de performance : ${detail}`,
  aiFallback: (detail) =>
    detail
      ? `Le modèle de langage n'a pas pu rédiger le résumé (${detail}) ; le rédacteur intégré a été utilisé.`
      : 'Il ne restait pas de temps pour le modèle de langage ; le rédacteur intégré a été utilisé.',
};
