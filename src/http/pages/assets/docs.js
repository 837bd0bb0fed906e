// Starts Swagger UI on /docs. A file, not inline code: the page's CSP runs scripts from this origin only.
;(function () {
  'use strict'
  var host = document.getElementById('swagger-ui')
  if (!host || typeof window.SwaggerUIBundle !== 'function') return
  window.SwaggerUIBundle({
    url: '/v1/openapi.json',
    domNode: host,
    // Deep links would put a link inside each operation's toggle button (nested controls fail axe's nested-interactive).
    deepLinking: false,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    // No "Try it out": API keys are not typed into web pages (the examples show each call).
    supportedSubmitMethods: [],
    // No request to the public validator service (no telemetry; the CSP would refuse it anyway).
    validatorUrl: null,
    // The theme whose colours all keep 4.5:1 contrast on its background.
    syntaxHighlight: { activated: true, theme: 'obsidian' },
    onComplete: function () {
      // The server-rendered list of operations is the page without JavaScript; Swagger UI replaces it.
      var fallback = document.getElementById('docs-fallback')
      if (fallback) fallback.hidden = true
    },
  })
})()
