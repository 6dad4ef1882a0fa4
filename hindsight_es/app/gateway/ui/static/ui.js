// The dashboard's glue, no more than this:
// - a request leaves out its empty fields, so that the URL htmx pushes names only the filters set;
// - a request that gets no answer at all (the server down, the network gone) says so in the results
//   area, instead of leaving the old results there in silence. An error the server answers arrives as
//   its own fragment (see the htmx-config meta tag of base.html and ui/errors.py);
// - a plain GET form leaves out its empty fields too (below).
document.addEventListener("htmx:configRequest", (event) => {
  const form = event.detail.formData;
  for (const [name, value] of Array.from(form.entries())) {
    if (value === "") form.delete(name);
  }
});

function showFailure(message) {
  const results = document.getElementById("results");
  if (!results) return;
  const alert = document.createElement("p");
  alert.className = "error";
  alert.setAttribute("role", "alert");
  alert.textContent = message;
  results.replaceChildren(alert);
}

document.addEventListener("htmx:sendError", () => showFailure("The dashboard did not answer: is the service running?"));
document.addEventListener("htmx:timeout", () => showFailure("The dashboard took too long to answer."));

// A plain GET form (the rollback plan, the bank as of a time) leaves its empty fields out of its URL too,
// so that the address of the page it leads to names only what was chosen. Without JS it sends them all.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.method !== "get" || form.hasAttribute("hx-get")) return;
  const query = new URLSearchParams();
  for (const [name, value] of new FormData(form, event.submitter)) {
    if (value !== "") query.append(name, value);
  }
  event.preventDefault();
  const target = new URL(form.action);
  target.search = query.toString();
  window.location.assign(target.href);
});
