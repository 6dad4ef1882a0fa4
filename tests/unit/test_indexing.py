"""The texts a memory is embedded and full-text indexed under."""

from __future__ import annotations

from hindsight_es.memory.indexing import CONTEXT_CHARS, UTTERANCE_WEIGHT, full_text, index_text


def test_an_utterance_is_indexed_with_its_speaker_and_the_turn_it_answers() -> None:
    assert index_text("Running clears my head.", "Mel", "Caroline: How do you unwind?") == (
        "Mel: Running clears my head.\n[in reply to] Caroline: How do you unwind?"
    )
    assert index_text("Running clears my head.") == "Running clears my head."


def test_full_text_weighs_the_utterance_over_its_context() -> None:
    text = full_text("Researching adoption agencies.", "Caroline", "Melanie: " + "x" * 500)
    utterance, context = text.split("\n[in reply to] ")
    assert utterance.split("\n") == ["Caroline: Researching adoption agencies."] * UTTERANCE_WEIGHT
    assert context == ("Melanie: " + "x" * 500)[:CONTEXT_CHARS]


def test_without_context_full_text_is_the_utterance_once() -> None:
    # a standalone memory's BM25 length and term counts are not inflated
    assert full_text("我对花生过敏。", "Bart") == "Bart: 我对花生过敏。"


def test_the_reply_context_is_the_latest_turn_of_someone_else() -> None:
    from hindsight_es.memory.indexing import LastTurn, reply_context

    agent = LastTurn("agent", "agent: Welcome back! How can I help with the shop today?", "Lin: Hi")
    assert reply_context(None, "Lin") is None
    assert reply_context(agent, "Lin") == agent.text
    lin = LastTurn("Lin", "Lin: We use MySQL.", agent.text)
    assert reply_context(lin, "Lin") == agent.text  # not a reply to their own message
    assert reply_context(lin, "agent") == "Lin: We use MySQL."
    assert reply_context(lin, "document", "document") is None  # material, not a reply (CONVERSATION)
    assert reply_context(lin, "tool", "tool") is None


def test_a_reply_to_a_short_turn_is_indexed_with_what_that_turn_answered() -> None:
    from hindsight_es.memory.indexing import LastTurn, reply_context

    said = "Marisol: I can finally practice for the CRR exam."
    asked = LastTurn("Dev", "Dev: When's that again?", said)  # names nothing: the exam is in the turn before
    assert reply_context(asked, "Marisol") == f"Dev: When's that again?\n{said}"
    assert reply_context(LastTurn("Lin", "Lin: 那你们什么时候去？", "Bo: 我们打算去苏州玩两天。"), "Bo") == (
        "Lin: 那你们什么时候去？\nBo: 我们打算去苏州玩两天。"
    )
    named = LastTurn("Dev", "Dev: When are you sitting the CRR exam again?", said)  # names its own topic
    assert reply_context(named, "Marisol") == named.text
    assert reply_context(LastTurn("Dev", "Dev: When's that again?", None), "Marisol") == "Dev: When's that again?"


def test_a_question_may_end_in_exclamation_marks() -> None:
    from hindsight_es.memory.indexing import LastTurn, reply_context

    said = "Tomasz: I'm officially an uncle!"
    assert reply_context(LastTurn("Ines", "Ines: AAAH! When?!", said), "Tomasz") == f"Ines: AAAH! When?!\n{said}"
    assert reply_context(LastTurn("Ines", "Ines: 真的吗？！", said), "Tomasz") == f"Ines: 真的吗？！\n{said}"
    assert reply_context(LastTurn("Ines", "Ines: Congratulations!!", said), "Tomasz") == "Ines: Congratulations!!"


def test_a_second_message_in_a_row_answers_the_short_question_not_what_it_asked_about() -> None:
    from hindsight_es.memory.indexing import LastTurn, reply_context

    answer = LastTurn("user", "user: March 28th, for a week.", "assistant: Lovely! When?\nuser: I'm booking Kyoto.")
    assert reply_context(answer, "user") == "assistant: Lovely! When?"
    plain = LastTurn("user", "user: We use MySQL.", "assistant: Which database do you use for the shop?")
    assert reply_context(plain, "user") == plain.context
