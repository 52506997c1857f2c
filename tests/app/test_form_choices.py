"""The page's model choice and follow-up switch are read from the visible form at every ask (ui.views.apply_form_choices).

They used to be stored by the radio's own change event; right after page load that event and a load event could each
start a fresh session, and the load's one, without the choice, was written last: the next ask used the default model.
"""

from __future__ import annotations

from ui import history
from ui.state import DEFAULT_GENERATOR, Session, generator_choices, judges_for_model_answers
from ui.views import apply_form_choices


def test_the_visible_choice_applies_to_a_session_that_never_saw_a_change_event():
    other = next((name for _, name in generator_choices() if name != DEFAULT_GENERATOR), None)
    assert other is not None, generator_choices()
    judge = judges_for_model_answers()[-1][1]
    session = apply_form_choices(False, other, "  sk-page-1  ", judge, None)  # a fresh page: no session yet
    assert isinstance(session, Session)
    assert (session.generator, session.api_key, session.judge) == (other, "sk-page-1", judge)
    assert history.conversation_of(session).resolve_follow_ups is False


def test_each_ask_reapplies_the_form_so_a_later_change_back_counts_too():
    other = next(name for _, name in generator_choices() if name != DEFAULT_GENERATOR)
    session = apply_form_choices(True, other, "", judges_for_model_answers()[0][1], Session())
    session = apply_form_choices(True, DEFAULT_GENERATOR, "", judges_for_model_answers()[0][1], session)
    assert session.generator == DEFAULT_GENERATOR and session.api_key is None
    assert history.conversation_of(session).resolve_follow_ups is True
