"""Perplexity of texts under a causal LM (reconstruction of lmppl/ppl_recurrent_lm.py: LM)."""

from math import exp
from typing import List, Union

import torch
import transformers

PAD_TOKEN_LABEL_ID = torch.nn.CrossEntropyLoss().ignore_index


class LM:
    def __init__(self, model: str = "gpt2", max_length: int = None, num_gpus: int = None):
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(model)
        self.model = transformers.AutoModelForCausalLM.from_pretrained(model)
        self.pad_token_initialized = False
        if self.tokenizer.pad_token is None:
            self.tokenizer.add_special_tokens({"pad_token": "<<PAD>>"})
            self.model.resize_token_embeddings(len(self.tokenizer))
            self.pad_token_initialized = True
        self.max_length = max_length
        self.loss_fct = torch.nn.CrossEntropyLoss(reduction="none")
        self.device = self.model.device
        num_gpus = torch.cuda.device_count() if num_gpus is None else num_gpus
        if num_gpus == 1:
            self.model.to("cuda")
            self.device = self.model.device
        self.model.eval()

    def get_perplexity(self, input_texts: Union[str, List[str]], batch_size: int = None):
        single_input = isinstance(input_texts, str)
        input_texts = [input_texts] if single_input else input_texts
        batch_size = len(input_texts) if batch_size is None else batch_size
        loss_list = []
        with torch.no_grad():
            for s in range(0, len(input_texts), batch_size):
                model_inputs = self.tokenizer(input_texts[s:s + batch_size], truncation=True, padding=True,
                                              return_tensors="pt")
                if "token_type_ids" in model_inputs:
                    model_inputs.pop("token_type_ids")

                output = self.model(**{k: v.to(self.device) for k, v in model_inputs.items()})
                logit = output["logits"]
                if self.pad_token_initialized:
                    logit = logit[:, :, :-1]

                # the labels are the input ids, shifted by one
                label = model_inputs["input_ids"]
                label[label == self.tokenizer.pad_token_id] = PAD_TOKEN_LABEL_ID
                shift_logits = logit[..., :-1, :].contiguous()
                shift_label = label[:, 1:].contiguous()

                valid_length = (shift_label != PAD_TOKEN_LABEL_ID).sum(dim=-1)
                loss = self.loss_fct(shift_logits.view(-1, shift_logits.size(-1)), shift_label.view(-1))
                loss = torch.sum(loss.view(len(logit), -1), -1) / valid_length
                loss_list += loss.cpu().tolist()
        ppl = [exp(i) for i in loss_list]
        return ppl[0] if single_input else ppl


def main():
    scorer = LM("gpt2")
    return scorer.get_perplexity(["sentiment classification: I dropped my laptop", "I have a laptop"])


if __name__ == "__main__":
    main()
