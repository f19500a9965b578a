// Starts Swagger UI on /docs (service/swagger_ui.py). The spec's URL and the app's options come from the page's
// container (data-url, data-config: OPENAPI_SWAGGER_UI_CONFIG), so that the page needs no inline script: its
// Content-Security-Policy allows none.
(function () {
  "use strict";
  var container = document.getElementById("swagger-ui-container");
  var config = { url: container.dataset.url, dom_id: "#swagger-ui-container" };
  Object.assign(config, JSON.parse(container.dataset.config || "{}"));
  window.ui = SwaggerUIBundle(config);
})();
