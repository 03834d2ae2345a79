def test_offline_tokenizer_round_trips_and_templates(tokenizer):
    text = "<think>x = 3</think> The answer is \\boxed{7}."
    assert tokenizer.decode(tokenizer.encode(text)) == text
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "What is 3+4?"}],
                                           add_generation_prompt=True, tokenize=False)
    assert prompt == "<|im_start|>user\nWhat is 3+4?<|im_end|>\n<|im_start|>assistant\n"
    ids = tokenizer.encode("#### 7<|im_end|>")
    assert tokenizer.decode(ids, skip_special_tokens=True) == "#### 7"
