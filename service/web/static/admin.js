// The operator's pages: signed in like the owner's view of a game (game.js), the token kept in this tab's
// sessionStorage and sent as "Authorization: Bearer" with every fragment fetched (/admin/parts/<section>) and with
// every action (POST or DELETE on /api/v1/admin/...), after which the fragments are fetched again.
(function () {
  "use strict";
  var TOKEN_KEY = "sorry-arena-operator-token";
  var root = document.getElementById("admin");
  var form = document.getElementById("admin-sign-in");
  var status = form.querySelector(".admin-status");
  var search = document.getElementById("admin-search");

  function token() {
    try {
      return window.sessionStorage.getItem(TOKEN_KEY) || "";
    } catch (error) {
      return "";
    }
  }

  function headers() {
    return token() ? { Authorization: "Bearer " + token() } : {};
  }

  function load(section) {
    var place = document.querySelector("#admin-" + section + " .admin-part");
    var url = root.dataset.partsUrl.replace("SECTION", section);
    if (section === "accounts" && search.value) url += "?name=" + encodeURIComponent(search.value);
    fetch(url, { headers: headers() }).then(function (response) {
      return response.text().then(function (html) {
        if (response.ok) {
          place.innerHTML = html;
        } else {
          var page = new DOMParser().parseFromString(html, "text/html").querySelector(".message");
          place.textContent = page ? page.textContent : String(response.status);
        }
      });
    });
  }

  function loadAll() {
    document.querySelectorAll(".admin-section").forEach(function (section) {
      load(section.dataset.section);
    });
    form.querySelector(".sign-out").hidden = !token();
  }

  root.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-action]");
    if (!button) return;
    var method = button.dataset.method || "POST";
    fetch(root.dataset.api + "/" + button.dataset.action, { method: method, headers: headers() })
      .then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok) {
            status.textContent = body.message || String(response.status);
          } else if (body.token) {
            status.textContent = root.dataset.newTokenText.replace("{id}", body.account_id).replace("{token}", body.token);
          } else {
            status.textContent = "";
          }
          loadAll();
        });
      });
  });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var field = document.getElementById("admin-token");
    if (!field.value.trim()) return;
    window.sessionStorage.setItem(TOKEN_KEY, field.value.trim());
    field.value = "";
    loadAll();
  });
  form.querySelector(".sign-out").addEventListener("click", function () {
    window.sessionStorage.removeItem(TOKEN_KEY);
    loadAll();
  });
  if (search) search.addEventListener("change", function () { load("accounts"); });
  if (token()) loadAll();
})();
