import { joiner, type SummaryTexts, type WarningTexts } from './texts.js';

export const summary: SummaryTexts = {
  decimal: ',',
  list: joiner('e'),
  trackers: (host, names) =>
    names.length === 0
      ? `Não foram encontrados rastreadores em ${host}.`
      : `${names.length === 1 ? 'Foi encontrado 1 rastreador' : `Foram encontrados ${names.length} rastreadores`} em ${host}: ${summary.list(names)}.`,
  tagManagers: (names) => `Gestão de tags: ${summary.list(names)}.`,
  onlyTagManagers: (host, names) =>
    `Não foram encontrados rastreadores de medição em ${host}, apenas gestão de tags: ${summary.list(names)}.`,
  cmp: (name) => `Plataforma de gestão de consentimento: ${name}.`,
  noCmp: (banner) =>
    banner
      ? 'Não foi detetada nenhuma plataforma de gestão de consentimento conhecida, mas há um aviso de cookies visível.'
      : 'Não foi detetada nenhuma plataforma de gestão de consentimento nem banner de cookies.',
  noTrackersUnchecked: (host) =>
    `Não foram encontrados rastreadores no HTML de ${host}; os carregados por scripts não puderam ser verificados porque a fase do navegador não terminou.`,
  noCmpUnchecked:
    'Não foi encontrada nenhuma plataforma de gestão de consentimento no código da página; não foi possível verificar se é mostrado um banner de cookies porque a fase do navegador não terminou.',
  noscriptOnly: (names) =>
    `Instalado apenas dentro de <noscript>, que nunca é executado para visitantes com JavaScript (instalação avariada, não mede nada): ${summary.list(names)}.`,
  referenced: (names) =>
    `Referidos no código da página, mas nunca carregados nem enviaram nada durante a análise, por isso não contam como rastreadores: ${summary.list(names)}.`,
  configuredNotFired: (items) =>
    `Configurados no gestor de tags, mas não foram vistos a disparar durante a análise (a análise nunca clica, não envia formulários nem dá consentimento): ${summary.list(items)}.`,
  consentMode: (version, mode, analytics, ads) =>
    `O Google Consent Mode ${version} está ativo${mode ? ` no modo ${summary.mode(mode)}` : ''} (predefinição: analytics_storage ${summary.state(analytics)}, ad_storage ${summary.state(ads)}).`,
  noConsentMode: 'O Google Consent Mode não foi detetado, embora existam tags da Google.',
  beforeConsent: (names) =>
    `${names.length} rastreador${names.length === 1 ? ' enviou' : 'es enviaram'} pedidos antes de qualquer consentimento: ${summary.list(names)}.`,
  cookieless: (names) =>
    `${summary.list(names)} só envi${names.length === 1 ? 'ou' : 'aram'} pings do Consent Mode sem cookies.`,
  nothingBeforeConsent: 'Nenhum rastreador enviou pedidos antes do consentimento.',
  beforeConsentUnknown:
    'Não foi possível verificar se os rastreadores disparam antes do consentimento porque a fase do navegador não terminou.',
  serverSide: (endpoints) =>
    `Foi detetado tagging do lado do servidor${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'Não foi detetado tagging do lado do servidor: as tags enviam dados diretamente aos fornecedores.',
  loss: (analytics, ads) => {
    const parts = [
      analytics && `cerca de ${analytics} % dos eventos de analytics`,
      ads && `cerca de ${ads} % das conversões de anúncios`,
    ].filter(Boolean) as string[];
    return `Perda de dados estimada: ${summary.list(parts)}.`;
  },
  recover: (points) =>
    `O tagging do lado do servidor num domínio próprio poderia recuperar cerca de ${points} pontos percentuais.`,
  pagespeed: (score, lcp, tbt, cls) =>
    `Pontuação de desempenho móvel: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'concedido' : value === 'denied' ? 'negado' : 'não definido'),
  mode: (mode) => (mode === 'advanced' ? 'avançado' : 'básico'),
  modeExplanation: {
    advanced:
      'Modo avançado: as tags do Google carregam antes do consentimento e, enquanto o armazenamento está negado, enviam pings sem cookies (nenhum cookie lido ou gravado; o Google usa-os para modelar conversões). Estes pings são pedidos anteriores ao consentimento, por isso as tags que os enviam contam como disparadas antes do consentimento.',
    basic:
      'Modo básico: as tags do Google ficam retidas até o visitante consentir, por isso nada é enviado ao Google antes do consentimento; o Google modela as conversões sem dados dos visitantes que recusam.',
  },
  rec: {
    consentNeverGranted: `O Google Consent Mode nega o armazenamento por predefinição, mas nenhuma plataforma nem banner de consentimento permite aos visitantes concedê-lo: ninguém pode alguma vez consentir. Adicione um banner que envie gtag('consent', 'update', …) quando o visitante aceita, ou remova os valores negados por predefinição se o consentimento não for necessário.`,
    addCmp:
      'Adicione uma plataforma de gestão de consentimento e carregue as tags de rastreio apenas após o consentimento dos visitantes.',
    blockBeforeConsent: (names) =>
      `Retenha ${summary.list(names)} até o visitante dar consentimento (bloqueio de scripts da CMP ou acionadores de consentimento no gestor de tags).`,
    addConsentMode:
      'Implemente o Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) através da sua CMP.',
    upgradeConsentMode: (keys) =>
      `Atualize para o Consent Mode v2 definindo também ${summary.list(keys)}, obrigatórios para publicidade personalizada no EEE desde março de 2024.`,
    serverSide: (domain, points) =>
      `Passe as suas tags para tagging do lado do servidor num subdomínio próprio (p. ex. data.${domain}) para recuperar cerca de ${points} pontos percentuais de dados perdidos.`,
    removeUa: 'Remova o Universal Analytics: deixou de processar dados em julho de 2023.',
    fixNoscriptOnly: (names) =>
      `Instale ${summary.list(names)} com o snippet JavaScript do fornecedor: um fallback <noscript> sozinho nunca é executado em navegadores com JavaScript.`,
    metaCapi: 'Envie os eventos da Meta também através da API de Conversões, além do pixel do navegador.',
    pagespeed: (score) =>
      `Melhore a velocidade da página (pontuação ${score}/100): carregue as tags de forma assíncrona e adie as que não são necessárias na primeira visualização.`,
    noTracking:
      'Não foi encontrado rastreio: se espera tags de analytics ou de anúncios aqui, verifique se estão publicadas.',
  },
  neverGrantedLoss: (names) =>
    `O Google Consent Mode nega o armazenamento por predefinição e nada na página o pode conceder: ${summary.list(names)} perde toda a medição sujeita a consentimento (contada como 100 % de perda por consentimento).`,
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      'Por rastreador, a parte dos dados mantida é (1 − perda por consentimento) × (1 − perda por bloqueadores) × (1 − perda por ITP).',
      consent
        ? `Foi encontrado um banner de consentimento: assume-se que ${rates.consent} % dos visitantes recusam.`
        : 'Não foi encontrado nenhum mecanismo de consentimento, por isso não se conta perda por consentimento (as tags podem estar a funcionar sem o consentimento exigido por lei).',
      `Os bloqueadores de anúncios estão ativos em ${rates.blockers} % das visualizações de página; ${rates.analyticsBlock} % deles também bloqueiam analytics e ${rates.adBlock} % os píxeis de anúncios. As tags servidas a partir do domínio do site evitam ${rates.escape} % desse bloqueio.`,
      `O Safari (${rates.safari} % do tráfego) perde ${rates.itp} % das conversões de anúncios porque os cookies criados por script expiram após 7 dias; um servidor de tagging próprio recupera ${rates.itpRecovery} % disso.`,
      analytics || ads
        ? `Resultado: perdem-se ${summary.list([analytics && `${analytics} % dos eventos de analytics`, ads && `${ads} % das conversões de anúncios`].filter(Boolean) as string[])}.`
        : 'Não foram encontrados rastreadores de medição, por isso não há perda.',
      'As recusas de consentimento não podem nem devem ser recuperadas com tagging do lado do servidor.',
    ].join(' '),
};

export const warnings: WarningTexts = {
  refused: (n, example) =>
    `${n} pedido(s) para endereços não públicos foram bloqueados${example ? `, p. ex. ${example}` : ''}.`,
  consentWithoutInteraction:
    'Foi executada uma atualização de consentimento que concede armazenamento, embora o scanner nunca tenha clicado num banner de cookies (apenas desloca a página, move o ponteiro, prime uma tecla e toca na página).',
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
  observationCut: (ms) =>
    `A página ainda estava ativa quando a observação terminou após ${ms} ms; as tags que disparam depois não foram vistas.`,
  consentRunCut:
    'A verificação do consentimento não conseguiu terminar cada execução dentro do limite de tempo («rejeitar tudo» ou «aceitar tudo» foi interrompido); a comparação cobre o que foi observado até então.',
  pagesFewer: (asked, found) =>
    `Apenas ${found} página${found === 1 ? '' : 's'} interna${found === 1 ? '' : 's'} ligada${found === 1 ? '' : 's'} a partir da página inicial para as ${asked} páginas pedidas.`,
  pagesSkipped: (count) =>
    `${count === 1 ? '1 página foi ignorada' : `${count} páginas foram ignoradas`}: o limite de tempo da análise não deixava margem.`,
  browserPartial: 'A página não terminou de carregar a tempo; os resultados cobrem o que fez até então.',
  browserIncomplete: (detail) => `Não foi possível ler alguns dados da página: ${detail}`,
  browserFailed: (timedOut, detail) =>
    `A etapa do navegador ${timedOut ? 'esgotou o tempo' : 'falhou'}: ${detail}. Os resultados vêm apenas do HTML.`,
  pagespeedNoTime: 'Não sobrou tempo para a medição de desempenho.',
  pagespeed: (detail) => `Medição de desempenho: ${detail}`,
  aiFallback: (detail) =>
    detail
      ? `O modelo de linguagem não conseguiu escrever o resumo (${detail}); foi usado o redator integrado.`
      : 'Não sobrou tempo para o modelo de linguagem; foi usado o redator integrado.',
};
