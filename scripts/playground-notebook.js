// Runs notebook 10 in the classic Jupyter Notebook in headless Chromium:
// changes a control, presses "done", and checks that the chart redrew,
// that the controls are gone and that the kernel is idle again. Run by
// scripts/test-playground-browser.sh. NB_FIRST_WAIT_MS (default 90000)
// is how long the first run waits for the controls before the retries
// below; a tiny value exercises them.
const { chromium } = require("playwright-core");

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
  // ready waits for page's kernel to be connected and idle; end ends
  // page's session, its kernel with it, and closes the page.
  const ready = (page) => page.waitForFunction(() => window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel &&
    Jupyter.notebook.kernel.is_connected() && !Jupyter.notebook.kernel_busy, null, { timeout: 60000 });
  const end = async (page) => {
    await page.evaluate(() => new Promise((done) => Jupyter.notebook.session.delete(done, done))).catch(() => {});
    await page.close();
  };
  // open loads the notebook in a new page, runs every cell from clean
  // outputs once the kernel is ready, and waits up to timeout ms for the
  // controls; it returns the page and the ZeRO-stage control.
  const open = async (timeout) => {
    const page = await browser.newPage({ viewport: { width: 1300, height: 1800 } });
    await page.goto(process.env.NB_URL);
    await ready(page);
    await page.evaluate(() => { Jupyter.notebook.clear_all_output(); Jupyter.notebook.execute_all_cells(); });
    const zero = page.locator(".output_area select").nth(5); // model, GPU, GPUs, sequence, micro-batch, ZeRO stage, ...
    try {
      await zero.waitFor({ timeout });
    } catch (e) {
      e.page = page;
      throw e;
    }
    return { page, zero };
  };
  // Seen in CI about one run in two, and under load here, always on the
  // first page of a fresh Jupyter server (new signing key, first kernel):
  // the kernel ran the controls' cell but the page never showed its
  // output, and a kernel restarted from that page never reported idle to
  // it. So a warm-up page brings up a first kernel and ends it, and each
  // miss of the run that counts ends its session and runs the notebook
  // again in a new page with a new kernel, up to three runs in all.
  const warm = await browser.newPage();
  await warm.goto(process.env.NB_URL);
  await ready(warm);
  await end(warm);
  let page, zero;
  const waits = [Number(process.env.NB_FIRST_WAIT_MS || 90000), 120000, 120000];
  for (let i = 0; ; i++) {
    try {
      ({ page, zero } = await open(waits[i]));
      break;
    } catch (e) {
      if (!e.page || i + 1 === waits.length) throw e;
      console.log("playground notebook: no controls in time (" + e.message.split("\n")[0] + "); ending the session and running again in a new page");
      await end(e.page);
    }
  }
  const out = page.locator('div[id^="planner_pg_out_"]');
  await page.waitForFunction(() => document.querySelector('div[id^="planner_pg_out_"] svg'), null, { timeout: 60000 });
  const before = await out.innerHTML();
  await zero.selectOption({ label: "3" });
  await page.waitForFunction((old) => { const o = document.querySelector('div[id^="planner_pg_out_"]'); return o && o.innerHTML !== old; }, before, { timeout: 30000 });
  await page.getByRole("button", { name: "done" }).click();
  await page.waitForFunction(() => document.querySelectorAll(".output_area select").length === 0, null, { timeout: 30000 });
  await page.waitForFunction(() => !Jupyter.notebook.kernel_busy && document.querySelector("#kernel_indicator_icon.kernel_idle_icon"), null, { timeout: 30000 });
  const closed = await page.getByText("Playground closed").count();
  await page.screenshot({ path: process.env.NB_SHOT, fullPage: true });
  await browser.close();
  if (closed === 0) {
    console.log("FAIL playground notebook: no closing note after done");
    process.exit(1);
  }
  console.log("ok   playground notebook in Chromium: a control redrew the chart; done removed the controls and freed the kernel");
})().catch((e) => { console.log("FAIL playground notebook in Chromium: " + e); process.exit(1); });
