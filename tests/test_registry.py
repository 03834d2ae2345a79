import pytest

from rewards import DuplicateScorerError, UnknownDataSourceError, compute_score, register_scorer
from rewards.registry import get_scorer, list_scorers
from rewards.result import Result, Verdict


def test_unknown_data_source_names_close_matches():
    with pytest.raises(UnknownDataSourceError) as info:
        compute_score("openai/gsm8", "#### 1", "1")
    message = str(info.value)
    assert "'openai/gsm8'" in message and "openai/gsm8k" in message


def test_empty_data_source_is_loud():
    for empty in ("", None):
        with pytest.raises(UnknownDataSourceError, match="data_source is empty"):
            compute_score(empty, "#### 1", "1")


def test_alias_resolves_to_same_entry():
    assert get_scorer("gsm8k") is get_scorer("openai/gsm8k")
    names = [e.name for e in list_scorers()]
    assert names.count("openai/gsm8k") == 1


def test_decorator_and_call_forms_and_override():
    @register_scorer("test/always-right", "test/alias")
    def always(response, gold, extra, settings):
        """Pays for anything."""
        return Result(Verdict.CORRECT, response[:5])

    assert compute_score("test/alias", "hello world", "x")["pred"] == "hello"
    assert get_scorer("test/always-right").description == "Pays for anything."

    def never(response, gold, extra, settings):
        return Result(Verdict.WRONG)

    with pytest.raises(DuplicateScorerError, match="override=True"):
        register_scorer("test/always-right", scorer=never)
    register_scorer("test/always-right", scorer=never, override=True)
    assert compute_score("test/always-right", "x", "x")["verdict"] == "wrong"


def test_prefix_names():
    register_scorer("test/prefix*", scorer=lambda r, g, e, s: Result(Verdict.WRONG, "short"))
    register_scorer("test/prefix-long*", scorer=lambda r, g, e, s: Result(Verdict.WRONG, "long"))
    assert compute_score("test/prefix2024", "x", "1")["pred"] == "short"
    assert compute_score("test/prefix-long-2025", "x", "1")["pred"] == "long"


def test_a_raising_scorer_becomes_an_error_verdict():
    @register_scorer("test/buggy")
    def buggy(response, gold, extra, settings):
        raise RuntimeError("boom")

    r = compute_score("test/buggy", "x", "1")
    assert r["verdict"] == "error" and r["score"] == 0.0


def test_non_text_response_is_an_error_verdict():
    assert compute_score("gsm8k", None, "1")["verdict"] == "error"


def test_registered_defaults_and_call_overrides():
    from rewards.registry import get_scorer as get

    @register_scorer("test/defaults", defaults={"gsm8k_mode": "flexible"})
    def mode_echo(response, gold, extra, settings):
        return Result(Verdict.WRONG, settings.gsm8k_mode)

    assert compute_score("test/defaults", "x", "1")["pred"] == "flexible"
    assert compute_score("test/defaults", "x", "1", gsm8k_mode="strict")["pred"] == "strict"
    assert get("test/defaults").defaults == {"gsm8k_mode": "flexible"}


def test_bad_setting_value_is_rejected_and_unknown_key_warned(caplog):
    from rewards import SettingsError

    with pytest.raises(SettingsError, match="gsm8k_mode"):
        compute_score("gsm8k", "#### 1", "1", gsm8k_mode="lenient")
    compute_score("gsm8k", "#### 1", "1", formt_weight=0.1)
    assert "formt_weight" in caplog.text
    # verl's own pass-through keywords are not ours and stay quiet
    caplog.clear()
    compute_score("gsm8k", "#### 1", "1", sandbox_fusion_url=None, memory_limit_mb=1024)
    assert caplog.text == ""


def test_entry_point_plugins_are_loaded(monkeypatch):
    import rewards.registry as registry

    class FakeEntryPoint:
        name = "test/plugin"

        def load(self):
            return lambda r, g, e, s: Result(Verdict.CORRECT, "plugin")

    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr("importlib.metadata.entry_points",
                        lambda group: [FakeEntryPoint()] if group == registry.ENTRY_POINT_GROUP else [])
    registry._entries.pop("test/plugin", None)
    assert compute_score("test/plugin", "x", "1")["pred"] == "plugin"
