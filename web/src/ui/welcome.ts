// The empty chat's first screen: one line on what runs where, and example questions about a small
// sample dataset the app ships (examples/sample-sales.csv, precached: it works offline too).
// A click puts the file in the sandbox and asks the question, or, with no model configured, puts
// code that answers it in the console.
import { h } from "./dom.js";

export const SAMPLE_FILE = "sales.csv";
export const SAMPLE_URL = "../examples/sample-sales.csv"; // relative to app/app.js

export interface Example {
  question: string;
  /** What the console runs when there is no model to ask. */
  code: string;
}

export const EXAMPLES: readonly Example[] = [
  {
    question: "Which region had the highest revenue in sales.csv? Show it as a bar chart.",
    code:
      "import pandas as pd, plotly.express as px\n" +
      "sales = pd.read_csv('sales.csv')\n" +
      "by_region = sales.groupby('region', as_index=False)['revenue'].sum().sort_values('revenue')\n" +
      "print(by_region.tail(1).to_string(index=False))\n" +
      "px.bar(by_region, x='region', y='revenue', title='Revenue by region, 2025')",
  },
  {
    question: "Plot monthly revenue per product from sales.csv as an interactive line chart.",
    code:
      "import pandas as pd, altair as alt\n" +
      "sales = pd.read_csv('sales.csv')\n" +
      "monthly = sales.groupby(['month', 'product'], as_index=False)['revenue'].sum()\n" +
      "alt.Chart(monthly, title='Monthly revenue').mark_line(point=True).encode(\n" +
      "    x='month:T', y='revenue:Q', color='product:N', tooltip=['month', 'product', 'revenue'])",
  },
  {
    question: "Summarize sales.csv: its columns, and the units and revenue per product.",
    code:
      "import pandas as pd\n" +
      "sales = pd.read_csv('sales.csv')\n" +
      "print(sales.dtypes.to_string())\n" +
      "sales.groupby('product')[['units', 'revenue']].sum()",
  },
];

export interface WelcomeActions {
  /** Puts the sample file into the sandbox, then asks or fills in the example. */
  choose(example: Example): void;
}

/** The first screen; `where` is updated once the configuration is known. */
export class Welcome {
  readonly element: HTMLElement;
  private readonly where = h("p", { class: "where" });

  constructor(actions: WelcomeActions) {
    this.show("the model: wherever this app is configured to reach one");
    const list = h("ul", { class: "examples", "aria-label": "Example questions" });
    for (const example of EXAMPLES) {
      const button = h("button", { type: "button", class: "example" }, example.question);
      button.addEventListener("click", () => actions.choose(example));
      list.append(h("li", {}, button));
    }
    this.element = h(
      "section",
      { class: "welcome", "aria-label": "Getting started" },
      this.where,
      h(
        "p",
        {},
        `Try a question about the sample data (${SAMPLE_FILE}: monthly sales, 96 rows, made up for the demo):`,
      ),
      list,
    );
  }

  /** "Code runs on this device …; the model …" */
  show(model: string): void {
    this.where.textContent = `Your code runs on this device, in a Python sandbox in this browser tab; ${model}.`;
  }
}

/** Where the model runs, in the words of the first screen. */
export function modelWhere(options: {
  server: boolean;
  llmConfigured: boolean;
  endpoint?: string | undefined;
  local?: boolean;
}): string {
  if (!options.llmConfigured) return "no model is configured yet, so the examples run in the console";
  if (options.local) return "the model runs on this device too, in this page";
  if (options.endpoint) return `the model runs at ${options.endpoint}, which this page calls directly`;
  return "the model runs where this server's proxy sends it";
}
