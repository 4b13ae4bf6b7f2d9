/**
 * Whether a response seen by a browser on a Jupyter page is a real failure. Notebook 6 probes for the
 * optional ipywidgets extension (`nbextensions/widgets/notebook/js/extension.js`) on every notebook
 * page and goes on without it: its 404 is the normal answer where ipywidgets is not installed.
 */
export function isNotebookFailure(status: number, url: string): boolean {
  return status >= 400 && !/\/nbextensions\/widgets\/notebook\/js\/extension\.js(\?|$)/.test(url);
}
