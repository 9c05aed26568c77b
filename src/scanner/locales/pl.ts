import { joiner, type SummaryTexts, type WarningTexts } from './texts.js';

/** Polish plural: 1 → one, 2–4 (not 12–14) → few, else many. */
function plPlural(count: number, one: string, few: string, many: string): string {
  if (count === 1) return one;
  const lastTwo = count % 100;
  const last = count % 10;
  return last >= 2 && last <= 4 && !(lastTwo >= 12 && lastTwo <= 14) ? few : many;
}

export const summary: SummaryTexts = {
  decimal: ',',
  list: joiner('i'),
  trackers: (host, names) =>
    names.length === 0
      ? `Na ${host} nie znaleziono żadnych trackerów.`
      : `Na ${host} ${plPlural(names.length, 'znaleziono 1 tracker', `znaleziono ${names.length} trackery`, `znaleziono ${names.length} trackerów`)}: ${summary.list(names)}.`,
  tagManagers: (names) => `Zarządzanie tagami: ${summary.list(names)}.`,
  onlyTagManagers: (host, names) =>
    `Na ${host} nie znaleziono trackerów pomiarowych, tylko zarządzanie tagami: ${summary.list(names)}.`,
  cmp: (name) => `Platforma do zarządzania zgodami: ${name}.`,
  noCmp: (banner) =>
    banner
      ? 'Nie wykryto znanej platformy do zarządzania zgodami, ale widoczny jest komunikat o plikach cookie.'
      : 'Nie wykryto platformy do zarządzania zgodami ani banera cookie.',
  noTrackersUnchecked: (host) =>
    `W kodzie HTML ${host} nie znaleziono trackerów; trackerów ładowanych przez skrypty nie można było sprawdzić, ponieważ etap przeglądarki nie został ukończony.`,
  noCmpUnchecked:
    'W kodzie strony nie znaleziono platformy do zarządzania zgodami; nie można było sprawdzić, czy wyświetla się baner cookie, ponieważ etap przeglądarki nie został ukończony.',
  noscriptOnly: (names) =>
    `Zainstalowane tylko wewnątrz <noscript>, który nigdy nie działa u odwiedzających z JavaScriptem (instalacja jest wadliwa i nic nie mierzy): ${summary.list(names)}.`,
  referenced: (names) =>
    `Wymienione w kodzie strony, ale podczas skanowania nigdy się nie załadowały ani niczego nie wysłały, więc nie są liczone jako trackery: ${summary.list(names)}.`,
  configuredNotFired: (items) =>
    `Skonfigurowane w menedżerze tagów, ale podczas skanowania nie zaobserwowano ich uruchomienia (skaner nigdy nie klika, nie wysyła formularzy ani nie wyraża zgody): ${summary.list(items)}.`,
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} jest aktywny${mode ? ` w trybie ${summary.mode(mode)}` : ''} (domyślnie: analytics_storage ${summary.state(analytics)}, ad_storage ${summary.state(ads)}).`,
  noConsentMode: 'Nie wykryto Google Consent Mode, choć na stronie są tagi Google.',
  beforeConsent: (names) =>
    `${names.length} ${plPlural(names.length, 'tracker wysłał', 'trackery wysłały', 'trackerów wysłało')} żądania przed udzieleniem jakiejkolwiek zgody: ${summary.list(names)}.`,
  cookieless: (names) =>
    `${summary.list(names)} ${names.length === 1 ? 'wysłał' : 'wysłały'} wyłącznie pingi Consent Mode bez plików cookie.`,
  nothingBeforeConsent: 'Żaden tracker nie wysłał żądań przed udzieleniem zgody.',
  beforeConsentUnknown:
    'Nie udało się sprawdzić, czy trackery uruchamiają się przed zgodą, ponieważ etap przeglądarki nie został ukończony.',
  serverSide: (endpoints) =>
    `Wykryto tagowanie po stronie serwera${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'Nie wykryto tagowania po stronie serwera: tagi wysyłają dane bezpośrednio do dostawców.',
  loss: (analytics, ads) => {
    const parts = [
      analytics && `około ${analytics}% zdarzeń analitycznych`,
      ads && `około ${ads}% konwersji reklamowych`,
    ].filter(Boolean) as string[];
    return `Szacowana utrata danych: ${summary.list(parts)}.`;
  },
  recover: (points) =>
    `Tagowanie po stronie serwera we własnej domenie (first-party) mogłoby odzyskać około ${points} punktów procentowych.`,
  pagespeed: (score, lcp, tbt, cls) =>
    `Wynik wydajności mobilnej: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'udzielona' : value === 'denied' ? 'odmówiona' : 'nieustawiona'),
  mode: (mode) => (mode === 'advanced' ? 'zaawansowanym' : 'podstawowym'),
  modeExplanation: {
    advanced:
      'Tryb zaawansowany: tagi Google ładują się przed zgodą i, dopóki przechowywanie jest odrzucone, wysyłają pingi bez plików cookie (bez odczytu i zapisu cookies; Google modeluje na ich podstawie konwersje). Te pingi to żądania wysłane przed zgodą, więc tagi, które je wysyłają, liczą się jako uruchomione przed zgodą.',
    basic:
      'Tryb podstawowy: tagi Google są wstrzymane do momentu wyrażenia zgody, więc przed zgodą nic nie trafia do Google; Google modeluje konwersje bez danych od odwiedzających, którzy odmówili.',
  },
  rec: {
    consentNeverGranted: `Google Consent Mode domyślnie odmawia zapisu danych, ale żadna platforma ani baner zgody nie pozwala odwiedzającym jej udzielić: nikt nigdy nie może wyrazić zgody. Dodaj baner zgody, który wysyła gtag('consent', 'update', …) po akceptacji, albo usuń domyślne odmowy, jeśli zgoda nie jest wymagana.`,
    addCmp:
      'Wdróż platformę do zarządzania zgodami i ładuj tagi śledzące dopiero po wyrażeniu zgody przez odwiedzających.',
    blockBeforeConsent: (names) =>
      `Wstrzymaj ${summary.list(names)} do czasu wyrażenia zgody (blokowanie skryptów przez CMP lub reguły zgody w menedżerze tagów).`,
    addConsentMode:
      'Wdróż Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) za pomocą swojej platformy CMP.',
    upgradeConsentMode: (keys) =>
      `Przejdź na Consent Mode v2, ustawiając także ${summary.list(keys)}, wymagane od marca 2024 r. dla reklam spersonalizowanych w EOG.`,
    serverSide: (domain, points) =>
      `Przenieś tagi na tagowanie po stronie serwera we własnej subdomenie (np. data.${domain}), aby odzyskać około ${points} punktów procentowych utraconych danych.`,
    removeUa: 'Usuń Universal Analytics: od lipca 2023 r. nie przetwarza już danych.',
    fixNoscriptOnly: (names) =>
      `Zainstaluj ${summary.list(names)} za pomocą fragmentu JavaScript dostawcy: sam zapasowy <noscript> nigdy nie działa w przeglądarkach z JavaScriptem.`,
    metaCapi: 'Wysyłaj zdarzenia Meta również przez Conversions API, oprócz piksela w przeglądarce.',
    pagespeed: (score) =>
      `Popraw szybkość strony (wynik ${score}/100): ładuj tagi asynchronicznie i opóźniaj te, które nie są potrzebne przy pierwszym wyświetleniu.`,
    noTracking:
      'Nie znaleziono śledzenia: jeśli powinny tu działać tagi analityczne lub reklamowe, sprawdź, czy zostały opublikowane.',
  },
  neverGrantedLoss: (names) =>
    `Google Consent Mode domyślnie odmawia zapisu danych i nic na stronie nie może udzielić zgody: ${summary.list(names)} traci wszystkie pomiary wymagające zgody (liczone jako 100% utraty z powodu zgody).`,
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Dla każdego trackera zachowana część danych to (1 − utrata przez brak zgody) × (1 − utrata przez blokery) × (1 − utrata przez ITP).',
      consent
        ? `Znaleziono baner zgody; przyjmujemy, że ${rates.consent}% odwiedzających odmawia zgody.`
        : 'Nie znaleziono mechanizmu zgody, więc nie liczymy utraty z powodu braku zgody (tagi mogą wtedy działać bez wymaganej prawem zgody).',
      `Blokery reklam są aktywne przy ${rates.blockers}% odsłon; ${rates.analyticsBlock}% z nich blokuje też analitykę, a ${rates.adBlock}% piksele reklamowe. Tagi serwowane z domeny witryny unikają ${rates.escape}% tej blokady.`,
      `Safari (${rates.safari}% ruchu) traci ${rates.itp}% konwersji reklamowych, bo pliki cookie ustawiane skryptem wygasają po 7 dniach; własny serwer tagujący odzyskuje ${rates.itpRecovery}% z tego.`,
      analytics || ads
        ? `Wynik: tracone jest ${summary.list([analytics && `${analytics}% zdarzeń analitycznych`, ads && `${ads}% konwersji reklamowych`].filter(Boolean) as string[])}.`
        : 'Nie znaleziono trackerów pomiarowych, więc nie ma strat.',
      'Odmowy zgody nie mogą i nie powinny być odzyskiwane przez tagowanie po stronie serwera.',
    ].join(' '),
};

export const warnings: WarningTexts = {
  refused: (n, example) => `Zablokowane żądania do adresów niepublicznych: ${n}${example ? `, np. ${example}` : ''}.`,
  consentWithoutInteraction:
    'Wykonano aktualizację zgody zezwalającą na zapis, choć skaner nie kliknął żadnego banera cookies (tylko przewija, porusza wskaźnikiem, naciska klawisz i dotyka strony).',
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
  observationCut: (ms) =>
    `Strona była nadal aktywna, gdy obserwacja zakończyła się po ${ms} ms; tagi uruchamiane później nie zostały zauważone.`,
  consentRunCut:
    'Sprawdzenie zgody nie zdążyło ukończyć każdego przebiegu w limicie czasu („odrzuć wszystkie” lub „akceptuj wszystkie” zostało przerwane); porównanie obejmuje to, co zaobserwowano do tego momentu.',
  pagesFewer: (asked, found) =>
    `Ze strony startowej prowadziło tylko ${found} łącz${found === 1 ? 'e' : 'y'} do stron wewnętrznych, wobec ${asked} żądanych stron.`,
  pagesSkipped: (count) => `Pominięto stron: ${count}; limit czasu skanowania nie zostawił na nie miejsca.`,
  browserPartial: 'Strona nie załadowała się w czasie; wyniki obejmują to, co zrobiła do tego momentu.',
  browserIncomplete: (detail) => `Nie udało się odczytać części danych strony: ${detail}`,
  browserFailed: (timedOut, detail) =>
    `Etap przeglądarki ${timedOut ? 'przekroczył limit czasu' : 'nie powiódł się'}: ${detail}. Wyniki pochodzą tylko z HTML.`,
  pagespeedNoTime: 'Nie zostało czasu na pomiar wydajności.',
  pagespeed: (detail) => `Pomiar wydajności: ${detail}`,
  aiFallback: (detail) =>
    detail
      ? `Model językowy nie napisał podsumowania (${detail}); użyto wbudowanego generatora.`
      : 'Nie zostało czasu na model językowy; użyto wbudowanego generatora.',
};
