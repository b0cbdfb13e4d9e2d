// Allure 3 configuration for `npx allure generate` (scripts/allure_html.sh runs it offline).
// One self-contained HTML file, tests grouped epic (suite) / feature (capability) / story (test).
import { readFileSync } from "node:fs";

// Gate failures vs infrastructure errors: the same rules the pytest plugin copies into the
// results folder as categories.json (Allure 2 format; Allure 3 reads those keys too).
const categories = JSON.parse(
  readFileSync(new URL("./plugins/nlp_gate/report/categories.json", import.meta.url), "utf-8"),
);

// The reports folder (scripts/allure_html.sh sets it; the project's tests point it at a tmp dir).
const reports = process.env.NLP_GATE_REPORTS ?? "./reports";

export default {
  name: "nlp-gate: behavioral release gate",
  output: `${reports}/allure-report`,
  // History lives outside allure-results (cleaned every run) and allure-report (rewritten),
  // so trends and retries carry across runs.
  historyPath: `${reports}/allure-history.jsonl`,
  historyLimit: 20,
  categories,
  plugins: {
    awesome: {
      options: {
        reportName: "nlp-gate: behavioral release gate",
        singleFile: true,
        reportLanguage: "en",
        groupBy: ["epic", "feature", "story"],
      },
    },
  },
};
