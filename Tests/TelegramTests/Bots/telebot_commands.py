"""A command bot as pyTelegramBotAPI's documentation writes one: message_handler(commands=…),
arguments from util.extract_arguments, and the command menu set with set_my_commands."""
import os

import telebot
from telebot import apihelper, types, util

apihelper.API_URL = os.environ["TELEGRAM_API"] + "/bot{0}/{1}"
apihelper.FILE_URL = os.environ["TELEGRAM_API"] + "/file/bot{0}/{1}"

bot = telebot.TeleBot(os.environ["BOT_TOKEN"])
bot.set_my_commands([
    types.BotCommand("start", "say hello"), types.BotCommand("caps", "shout"),
    types.BotCommand("sum", "add numbers"), types.BotCommand("menu", "list the commands"),
])


@bot.message_handler(commands=["start"])
def start(message):
    bot.reply_to(message, f"Hello {message.from_user.first_name}! Try /caps or /sum.")


@bot.message_handler(commands=["caps"])
def caps(message):
    text = util.extract_arguments(message.text)
    bot.reply_to(message, text.upper() if text else "Usage: /caps <text>")


@bot.message_handler(commands=["sum"])
def add(message):
    try:
        total = sum(int(argument) for argument in util.extract_arguments(message.text).split())
    except ValueError:
        bot.reply_to(message, "Usage: /sum <numbers>")
        return
    bot.reply_to(message, f"The sum is *{total}*", parse_mode="Markdown")


@bot.message_handler(commands=["menu"])
def menu(message):
    commands = bot.get_my_commands()
    bot.reply_to(message, "Commands: " + ", ".join("/" + c.command for c in commands))


bot.infinity_polling()
