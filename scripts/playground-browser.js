// Changes the playground page's controls in headless Chromium and checks
// that the chart, the verdict and the address follow. Run by
// scripts/test-playground-browser.sh.
const { chromium } = require("playwright-core");

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
  const page = await browser.newPage({ viewport: { width: 1300, height: 1800 } });
  await page.goto(process.env.URL);
  const chart = () => page.$eval("#out svg", (s) => s.outerHTML);
  const before = await chart();
  const verdictBefore = await page.$eval("#out .fit", (e) => e.textContent);
  await page.selectOption('select[name="gpus"]', "8");
  await page.selectOption('select[name="zero"]', "0");
  await page.waitForFunction((old) => document.querySelector("#out svg") && document.querySelector("#out svg").outerHTML !== old, before);
  await page.waitForFunction(() => new URL(location.href).searchParams.get("zero") === "0");
  const verdictAfter = await page.$eval("#out .fit", (e) => e.textContent);
  const url = page.url();
  await page.screenshot({ path: process.env.SHOT, fullPage: true });
  await browser.close();
  const problems = [];
  if (verdictBefore !== "fits" || verdictAfter !== "does not fit") problems.push(`verdict ${verdictBefore} -> ${verdictAfter}`);
  if (!url.includes("gpus=8") || !url.includes("zero=0")) problems.push(`address ${url}`);
  if (problems.length) {
    console.log("FAIL playground in Chromium: " + problems.join("; "));
    process.exit(1);
  }
  console.log(`ok   playground in Chromium: the chart and verdict redrew (${verdictBefore} -> ${verdictAfter}), address ${url}`);
})().catch((e) => { console.log("FAIL playground in Chromium: " + e); process.exit(1); });
