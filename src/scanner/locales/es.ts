import { joiner, type SummaryTexts, type WarningTexts } from './texts.js';

export const summary: SummaryTexts = {
  decimal: ',',
  list: joiner('y'),
  trackers: (host, names) =>
    names.length === 0
      ? `No se encontraron rastreadores en ${host}.`
      : `Se encontr${names.length === 1 ? 'ó' : 'aron'} ${names.length} rastreador${names.length === 1 ? '' : 'es'} en ${host}: ${summary.list(names)}.`,
  tagManagers: (names) => `Gestión de etiquetas: ${summary.list(names)}.`,
  onlyTagManagers: (host, names) =>
    `No se encontraron rastreadores de medición en ${host}, solo gestión de etiquetas: ${summary.list(names)}.`,
  cmp: (name) => `Plataforma de gestión del consentimiento: ${name}.`,
  noCmp: (banner) =>
    banner
      ? 'No se detectó ninguna plataforma de gestión del consentimiento conocida, pero hay un aviso de cookies visible.'
      : 'No se detectó ninguna plataforma de gestión del consentimiento ni banner de cookies.',
  noTrackersUnchecked: (host) =>
    `No se encontraron rastreadores en el HTML de ${host}; los que cargan los scripts no se pudieron comprobar porque la fase del navegador no terminó.`,
  noCmpUnchecked:
    'No se encontró ninguna plataforma de gestión del consentimiento en el código de la página; no se pudo comprobar si se muestra un banner de cookies porque la fase del navegador no terminó.',
  noscriptOnly: (names) =>
    `Instalado solo dentro de <noscript>, que nunca se ejecuta para visitantes con JavaScript (la instalación está rota y no mide nada): ${summary.list(names)}.`,
  referenced: (names) =>
    `Mencionados en el código de la página pero nunca cargados ni enviaron nada durante el análisis, por lo que no se cuentan como rastreadores: ${summary.list(names)}.`,
  configuredNotFired: (items) =>
    `Configurados en el gestor de etiquetas pero no se vio que se activaran durante el análisis (el análisis nunca hace clic, no envía formularios ni da su consentimiento): ${summary.list(items)}.`,
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} está activo${mode ? ` en modo ${summary.mode(mode)}` : ''} (por defecto: analytics_storage ${summary.state(analytics)}, ad_storage ${summary.state(ads)}).`,
  noConsentMode: 'No se detectó Google Consent Mode aunque hay etiquetas de Google.',
  beforeConsent: (names) =>
    `${names.length} rastreador${names.length === 1 ? ' envió' : 'es enviaron'} solicitudes antes de cualquier consentimiento: ${summary.list(names)}.`,
  cookieless: (names) =>
    `${summary.list(names)} solo envi${names.length === 1 ? 'ó' : 'aron'} pings de Consent Mode sin cookies.`,
  nothingBeforeConsent: 'Ningún rastreador envió solicitudes antes del consentimiento.',
  beforeConsentUnknown:
    'No se pudo comprobar si los rastreadores se activan antes del consentimiento porque la fase del navegador no terminó.',
  serverSide: (endpoints) =>
    `Se detectó etiquetado del lado del servidor${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide:
    'No se detectó etiquetado del lado del servidor: las etiquetas envían los datos directamente a los proveedores.',
  loss: (analytics, ads) => {
    const parts = [
      analytics && `alrededor del ${analytics} % de los eventos de analítica`,
      ads && `alrededor del ${ads} % de las conversiones publicitarias`,
    ].filter(Boolean) as string[];
    return `Pérdida de datos estimada: ${summary.list(parts)}.`;
  },
  recover: (points) =>
    `El etiquetado del lado del servidor en un dominio propio podría recuperar unos ${points} puntos porcentuales.`,
  pagespeed: (score, lcp, tbt, cls) =>
    `Puntuación de rendimiento móvil: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'concedido' : value === 'denied' ? 'denegado' : 'sin definir'),
  mode: (mode) => (mode === 'advanced' ? 'avanzado' : 'básico'),
  modeExplanation: {
    advanced:
      'Modo avanzado: las etiquetas de Google se cargan antes del consentimiento y, mientras el almacenamiento está denegado, envían pings sin cookies (sin leer ni escribir cookies; Google los usa para modelar conversiones). Estos pings son solicitudes anteriores al consentimiento, por lo que las etiquetas que los envían cuentan como activadas antes del consentimiento.',
    basic:
      'Modo básico: las etiquetas de Google se retienen hasta que el visitante da su consentimiento, así que no se envía nada a Google antes; Google modela las conversiones sin datos de quienes lo rechazan.',
  },
  rec: {
    consentNeverGranted: `Google Consent Mode deniega el almacenamiento por defecto, pero ninguna plataforma ni banner de consentimiento permite a los visitantes concederlo: nadie puede consentir nunca. Añada un banner que envíe gtag('consent', 'update', …) cuando el visitante acepte, o quite los valores denegados por defecto si no se requiere consentimiento.`,
    addCmp:
      'Añada una plataforma de gestión del consentimiento y cargue las etiquetas de seguimiento solo tras el consentimiento.',
    blockBeforeConsent: (names) =>
      `Retenga ${summary.list(names)} hasta que el visitante dé su consentimiento (bloqueo de scripts de la CMP o activadores de consentimiento en su gestor de etiquetas).`,
    addConsentMode:
      'Implemente Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) a través de su CMP.',
    upgradeConsentMode: (keys) =>
      `Actualice a Consent Mode v2 definiendo también ${summary.list(keys)}, obligatorios para publicidad personalizada en el EEE desde marzo de 2024.`,
    serverSide: (domain, points) =>
      `Traslade sus etiquetas a etiquetado del lado del servidor en un subdominio propio (p. ej. data.${domain}) para recuperar unos ${points} puntos porcentuales de datos perdidos.`,
    removeUa: 'Elimine Universal Analytics: dejó de procesar datos en julio de 2023.',
    fixNoscriptOnly: (names) =>
      `Instale ${summary.list(names)} con el fragmento JavaScript del proveedor: un respaldo <noscript> por sí solo nunca se ejecuta en navegadores con JavaScript.`,
    metaCapi: 'Envíe los eventos de Meta también mediante la API de Conversiones, además del píxel del navegador.',
    pagespeed: (score) =>
      `Mejore la velocidad de la página (puntuación ${score}/100): cargue las etiquetas de forma asíncrona y aplace las que no se necesitan en la primera vista.`,
    noTracking:
      'No se encontró seguimiento: si espera etiquetas de analítica o publicidad aquí, compruebe que estén publicadas.',
  },
  neverGrantedLoss: (names) =>
    `Google Consent Mode deniega el almacenamiento por defecto y nada en la página puede concederlo: ${summary.list(names)} pierde toda la medición sujeta a consentimiento (contada como 100 % de pérdida por consentimiento).`,
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Por rastreador, la parte de datos conservada es (1 − pérdida por consentimiento) × (1 − pérdida por bloqueadores) × (1 − pérdida por ITP).',
      consent
        ? `Se encontró un banner de consentimiento: se supone que el ${rates.consent} % de los visitantes lo rechaza.`
        : 'No se encontró ningún mecanismo de consentimiento, así que no se cuenta pérdida por consentimiento (las etiquetas quizá funcionen sin el consentimiento que exige la ley).',
      `Los bloqueadores de anuncios están activos en el ${rates.blockers} % de las páginas vistas; el ${rates.analyticsBlock} % de ellos también bloquea la analítica y el ${rates.adBlock} % los píxeles publicitarios. Las etiquetas servidas desde el dominio del sitio evitan el ${rates.escape} % de ese bloqueo.`,
      `Safari (${rates.safari} % del tráfico) pierde el ${rates.itp} % de sus conversiones publicitarias porque las cookies creadas por script caducan a los 7 días; un servidor de etiquetado propio recupera el ${rates.itpRecovery} %.`,
      analytics || ads
        ? `Resultado: se pierde ${summary.list([analytics && `el ${analytics} % de los eventos de analítica`, ads && `el ${ads} % de las conversiones publicitarias`].filter(Boolean) as string[])}.`
        : 'No se encontraron rastreadores de medición, así que no hay pérdida.',
      'Los rechazos de consentimiento no pueden ni deben recuperarse con etiquetado del lado del servidor.',
    ].join(' '),
};

export const warnings: WarningTexts = {
  refused: (n, example) =>
    `Se bloquearon ${n} solicitud(es) a direcciones no públicas${example ? `, p. ej. ${example}` : ''}.`,
  consentWithoutInteraction:
    'Se ejecutó una actualización de consentimiento que concede almacenamiento aunque el escáner nunca hizo clic en un banner de cookies (solo desplaza, mueve el puntero, pulsa una tecla y toca la página).',
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
  observationCut: (ms) =>
    `La página seguía activa cuando la observación terminó tras ${ms} ms; no se vieron las etiquetas que se activan después.`,
  consentRunCut:
    'La comprobación del consentimiento no pudo terminar cada pasada dentro del límite de tiempo («rechazar todo» o «aceptar todo» se interrumpió); la comparación cubre lo observado hasta entonces.',
  pagesFewer: (asked, found) =>
    `Solo ${found} página${found === 1 ? '' : 's'} interna${found === 1 ? '' : 's'} enlazada${found === 1 ? '' : 's'} desde la página inicial para las ${asked} páginas pedidas.`,
  pagesSkipped: (count) =>
    `Se ${count === 1 ? 'omitió 1 página' : `omitieron ${count} páginas`}: el límite de tiempo del análisis no dejaba margen.`,
  browserPartial: 'La página no terminó de cargarse a tiempo; los resultados cubren lo que hizo hasta entonces.',
  browserIncomplete: (detail) => `No se pudieron leer algunos datos de la página: ${detail}`,
  browserFailed: (timedOut, detail) =>
    `La etapa del navegador ${timedOut ? 'agotó el tiempo' : 'falló'}: ${detail}. Los resultados proceden solo del HTML.`,
  pagespeedNoTime: 'No quedó tiempo para la medición de rendimiento.',
  pagespeed: (detail) => `Medición de rendimiento: ${detail}`,
  aiFallback: (detail) =>
    detail
      ? `El modelo de lenguaje no pudo escribir el resumen (${detail}); se usó el redactor integrado.`
      : 'No quedó tiempo para el modelo de lenguaje; se usó el redactor integrado.',
};
