import { render } from 'preact';
render(<p>dashboard</p>, document.body);
