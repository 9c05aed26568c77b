import { joiner, type SummaryTexts, type WarningTexts } from './texts.js';

export const summary: SummaryTexts = {
  decimal: ',',
  list: joiner('en'),
  trackers: (host, names) =>
    names.length === 0
      ? `Er zijn geen trackers gevonden op ${host}.`
      : `${names.length} tracker${names.length === 1 ? '' : 's'} gevonden op ${host}: ${summary.list(names)}.`,
  tagManagers: (names) => `Tagbeheer: ${summary.list(names)}.`,
  onlyTagManagers: (host, names) =>
    `Er zijn geen meetende trackers gevonden op ${host}, alleen tagbeheer: ${summary.list(names)}.`,
  cmp: (name) => `Consentmanagementplatform: ${name}.`,
  noCmp: (banner) =>
    banner
      ? 'Er is geen bekend consentmanagementplatform gevonden, maar er is een cookiemelding zichtbaar.'
      : 'Er is geen consentmanagementplatform of cookiebanner gevonden.',
  noTrackersUnchecked: (host) =>
    `In de HTML van ${host} zijn geen trackers gevonden; trackers die scripts laden, konden niet worden gecontroleerd omdat de browserfase niet is voltooid.`,
  noCmpUnchecked:
    'In de paginacode is geen consentmanagementplatform gevonden; of er een cookiebanner verschijnt, kon niet worden gecontroleerd omdat de browserfase niet is voltooid.',
  noscriptOnly: (names) =>
    `Alleen binnen <noscript> geïnstalleerd, dat nooit draait voor bezoekers met JavaScript (installatie defect, er wordt niets gemeten): ${summary.list(names)}.`,
  referenced: (names) =>
    `Genoemd in de code van de pagina, maar tijdens de scan nooit geladen en zonder verzonden gegevens, dus niet als tracker geteld: ${summary.list(names)}.`,
  configuredNotFired: (items) =>
    `Ingesteld in de tagmanager, maar tijdens de scan niet afgegaan (de scan klikt nooit, verstuurt geen formulier en geeft geen toestemming): ${summary.list(items)}.`,
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} is actief${mode ? ` in de ${summary.mode(mode)} modus` : ''} (standaard: analytics_storage ${summary.state(analytics)}, ad_storage ${summary.state(ads)}).`,
  noConsentMode: 'Google Consent Mode is niet gevonden, hoewel er Google-tags aanwezig zijn.',
  beforeConsent: (names) =>
    `${names.length} tracker${names.length === 1 ? ' stuurde' : 's stuurden'} verzoeken vóór enige toestemming: ${summary.list(names)}.`,
  cookieless: (names) =>
    `${summary.list(names)} stuurde${names.length === 1 ? '' : 'n'} alleen cookieloze Consent Mode-pings.`,
  nothingBeforeConsent: 'Geen enkele tracker stuurde verzoeken vóór toestemming.',
  beforeConsentUnknown:
    'Of trackers vóór toestemming afgaan, kon niet worden gecontroleerd omdat de browserfase niet is voltooid.',
  serverSide: (endpoints) => `Server-side tagging gevonden${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'Geen server-side tagging gevonden: tags sturen gegevens rechtstreeks naar de leveranciers.',
  loss: (analytics, ads) => {
    const parts = [
      analytics && `ongeveer ${analytics}% van de analytics-events`,
      ads && `ongeveer ${ads}% van de advertentieconversies`,
    ].filter(Boolean) as string[];
    return `Geschat gegevensverlies: ${summary.list(parts)}.`;
  },
  recover: (points) =>
    `Server-side tagging op een eigen (first-party) domein kan ongeveer ${points} procentpunt terugwinnen.`,
  pagespeed: (score, lcp, tbt, cls) =>
    `Mobiele prestatiescore: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'verleend' : value === 'denied' ? 'geweigerd' : 'niet ingesteld'),
  mode: (mode) => (mode === 'advanced' ? 'geavanceerde' : 'basis'),
  modeExplanation: {
    advanced:
      'Geavanceerde modus: Google-tags laden vóór toestemming en sturen, zolang opslag geweigerd is, cookieloze pings (er worden geen cookies gelezen of geschreven; Google modelleert er conversies mee). Deze pings zijn verzoeken vóór toestemming, dus de tags die ze sturen tellen als afgevuurd vóór toestemming.',
    basic:
      'Basismodus: Google-tags worden tegengehouden tot de bezoeker toestemming geeft, dus vóór toestemming gaat er niets naar Google; Google modelleert conversies zonder gegevens van bezoekers die weigeren.',
  },
  rec: {
    consentNeverGranted: `Google Consent Mode weigert opslag standaard, maar geen consentplatform of banner laat bezoekers toestemming geven: niemand kan ooit toestemmen. Voeg een toestemmingsbanner toe die gtag('consent', 'update', …) stuurt wanneer bezoekers accepteren, of verwijder de geweigerde standaardwaarden als toestemming niet nodig is.`,
    addCmp: 'Voeg een consentmanagementplatform toe en laad trackingtags pas na toestemming van de bezoeker.',
    blockBeforeConsent: (names) =>
      `Houd ${summary.list(names)} tegen tot de bezoeker toestemming geeft (scriptblokkering van het CMP of consent-triggers in uw tagmanager).`,
    addConsentMode:
      'Implementeer Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) via uw CMP.',
    upgradeConsentMode: (keys) =>
      `Stap over op Consent Mode v2 door ook ${summary.list(keys)} in te stellen, sinds maart 2024 vereist voor gepersonaliseerde advertenties in de EER.`,
    serverSide: (domain, points) =>
      `Verplaats uw tags naar server-side tagging op een eigen subdomein (bijv. data.${domain}) om ongeveer ${points} procentpunt aan verloren gegevens terug te winnen.`,
    removeUa: 'Verwijder Universal Analytics: het verwerkt sinds juli 2023 geen gegevens meer.',
    fixNoscriptOnly: (names) =>
      `Installeer ${summary.list(names)} met het JavaScript-fragment van de leverancier: een <noscript>-fallback alleen draait nooit in browsers met JavaScript.`,
    metaCapi: 'Stuur Meta-events naast de browserpixel ook via de Conversions API.',
    pagespeed: (score) =>
      `Verbeter de paginasnelheid (score ${score}/100): laad tags asynchroon en stel tags uit die niet nodig zijn voor de eerste weergave.`,
    noTracking:
      'Er is geen tracking gevonden: verwacht u hier analytics- of advertentietags, controleer dan of ze gepubliceerd zijn.',
  },
  neverGrantedLoss: (names) =>
    `Google Consent Mode weigert opslag standaard en niets op de pagina kan die toestemming geven: ${summary.list(names)} verliest alle metingen waarvoor toestemming nodig is (geteld als 100% toestemmingsverlies).`,
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Per tracker is het behouden deel van de gegevens (1 − verlies door toestemming) × (1 − verlies door blockers) × (1 − verlies door ITP).',
      consent
        ? `Er is een toestemmingsbanner gevonden; we nemen aan dat ${rates.consent}% van de bezoekers weigert.`
        : 'Er is geen toestemmingsmechanisme gevonden, dus er wordt geen verlies door toestemming geteld (de tags draaien dan mogelijk zonder de wettelijk vereiste toestemming).',
      `Adblockers zijn actief bij ${rates.blockers}% van de paginaweergaven; ${rates.analyticsBlock}% daarvan blokkeert ook analytics en ${rates.adBlock}% advertentiepixels. Tags vanaf het eigen domein van de site ontlopen ${rates.escape}% van die blokkering.`,
      `Safari (${rates.safari}% van het verkeer) verliest ${rates.itp}% van zijn advertentieconversies omdat via script gezette cookies na 7 dagen verlopen; een first-party taggingserver wint daarvan ${rates.itpRecovery}% terug.`,
      analytics || ads
        ? `Resultaat: ${summary.list([analytics && `${analytics}% van de analytics-events`, ads && `${ads}% van de advertentieconversies`].filter(Boolean) as string[])} gaat verloren.`
        : 'Er zijn geen meettrackers gevonden, dus er gaat niets verloren.',
      'Geweigerde toestemming kan en mag niet met server-side tagging worden teruggewonnen.',
    ].join(' '),
};

export const warnings: WarningTexts = {
  refused: (n, example) =>
    `${n} verzoek(en) naar niet-openbare adressen zijn geblokkeerd${example ? `, bijv. ${example}` : ''}.`,
  consentWithoutInteraction:
    'Er liep een toestemmingsupdate die opslag toestaat, hoewel de scanner nooit op een cookiebanner heeft geklikt (hij scrolt alleen, beweegt de aanwijzer, drukt een toets in en raakt de pagina aan).',
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
  observationCut: (ms) =>
    `De pagina was nog bezig toen de observatie na ${ms} ms stopte; tags die later afgaan zijn niet gezien.`,
  consentRunCut:
    'De toestemmingscontrole kon niet elke doorloop binnen de tijdslimiet afronden (“alles weigeren” of “alles accepteren” werd afgebroken); de vergelijking dekt wat tot dan toe is waargenomen.',
  pagesFewer: (asked, found) =>
    `Vanaf de startpagina ${found === 1 ? 'was maar 1 interne pagina' : `waren maar ${found} interne pagina's`} gelinkt voor de ${asked} gevraagde pagina's.`,
  pagesSkipped: (count) =>
    `${count === 1 ? '1 pagina is' : `${count} pagina's zijn`} overgeslagen: de tijdslimiet van de scan liet geen ruimte.`,
  browserPartial: 'De pagina was niet op tijd geladen; de bevindingen dekken wat ze tot dan toe deed.',
  browserIncomplete: (detail) => `Sommige paginagegevens konden niet worden gelezen: ${detail}`,
  browserFailed: (timedOut, detail) =>
    `De browserstap ${timedOut ? 'liep uit de tijd' : 'is mislukt'}: ${detail}. De resultaten komen alleen uit de HTML.`,
  pagespeedNoTime: 'Er was geen tijd meer voor de prestatiemeting.',
  pagespeed: (detail) => `Prestatiemeting: ${detail}`,
  aiFallback: (detail) =>
    detail
      ? `Het taalmodel kon de samenvatting niet schrijven (${detail}); de ingebouwde schrijver is gebruikt.`
      : 'Er was geen tijd meer voor het taalmodel; de ingebouwde schrijver is gebruikt.',
};
