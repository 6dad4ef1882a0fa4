// The dashboard's htmx glue, no more than this:
// - a request leaves out its empty fields, so that the URL htmx pushes names only the filters set;
// - a request that gets no answer at all (the server down, the network gone) says so in the results
//   area, instead of leaving the old results there in silence. An error the server answers arrives as
//   its own fragment (see the htmx-config meta tag of base.html and ui/errors.py).
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
