import { isDefining } from '../extractive-answer.generator';

describe(isDefining.name, () => {
  it('rejects a subject that names the topic only as an example of something else', () => {
    const topic = new Set(['blaster']);
    expect(isDefining('Tools such as k6 or blaster can be used for load tests.', topic)).toBe(false);
    expect(isDefining('Blaster can be used for load tests.', topic)).toBe(true);
  });

  it('accepts "X is / X are / X lets you / X provides" and rejects sentences where X is not the subject', () => {
    const topic = new Set(['widget']);
    expect(isDefining('A widget is a class that renders a part of a page.', topic)).toBe(true);
    expect(isDefining('Widgets are reusable parts of a page.', topic)).toBe(true);
    expect(isDefining('The widget API lets you render parts of a page.', topic)).toBe(true);
    expect(isDefining('There is no difference between microservices widgets and widgets.', topic)).toBe(
      false,
    );
    expect(isDefining('When a widget is registered, it renders.', topic)).toBe(false);
  });

  it('accepts a predicate that names the topic alone and a glossary entry for it', () => {
    const topic = new Set(['widget']);
    expect(isDefining('The second parameter of the render function is `Widget`.', topic)).toBe(true);
    expect(isDefining('Widget: Details the object passed to each render call.', topic)).toBe(true);
    expect(isDefining('`widget` - The part of the page being rendered.', topic, ['widget'])).toBe(true);
    expect(isDefining('The default is a widget with no border.', topic)).toBe(false);
    expect(isDefining('Gadget: Details the object passed to each widget.', topic)).toBe(false);
  });
});
