import { useLayoutEffect, useRef, useState } from 'react';

/** How close to the bottom counts as "at the end" (the view then keeps scrolling with new text). */
const BOTTOM_SLACK_PX = 24;

/**
 * A scrolling log view that shows its end: it scrolls to the bottom when `text` changes, unless the
 * reader scrolled up (then `scrolledUp`, and `toEnd` takes them back down).
 */
export function useStickToEnd<E extends HTMLElement>(text: string) {
  const ref = useRef<E>(null);
  const atEnd = useRef(true);
  const [scrolledUp, setScrolledUp] = useState(false);

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [text]);

  const onScroll = () => {
    const el = ref.current;
    if (!el) return;
    atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight <= BOTTOM_SLACK_PX;
    setScrolledUp(!atEnd.current);
  };
  const toEnd = () => {
    const el = ref.current;
    if (!el) return;
    atEnd.current = true;
    setScrolledUp(false);
    el.scrollTop = el.scrollHeight;
  };
  return { ref, onScroll, scrolledUp, toEnd };
}
